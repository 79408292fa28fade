// Generator: determinism, the exact transforms from raw draws, distribution sanity.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "helpers.hpp"

using namespace tapegrad;

namespace {

// Bitwise equality of two doubles (== would also call −0 and 0 equal).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

struct Moments {
  double mean = 0, std = 0;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.std += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(v.size()));
  return m;
}

}  // namespace

TEST_CASE("Generator is a plain std::mt19937_64 underneath", "[optim]") {
  // The C++ standard fixes this value: the 10000th draw of a default-seeded mt19937_64.
  Generator gen(5489);
  std::uint64_t x = 0;
  for (int i = 0; i < 10000; ++i) x = gen.next_u64();
  CHECK(x == 9981545732273789042ULL);
}

TEST_CASE("Generator's uniform and normal are the documented transforms of raw draws", "[optim]") {
  Generator gen(2024);
  std::mt19937_64 raw(2024);
  for (int i = 0; i < 100; ++i) {
    const double u = static_cast<double>(raw() >> 11) / 9007199254740992.0;  // top 53 bits / 2^53
    REQUIRE(same_bits(gen.uniform(), u));
  }
  for (int i = 0; i < 100; ++i) {
    const double u1 = 1.0 - static_cast<double>(raw() >> 11) / 9007199254740992.0;
    const double u2 = static_cast<double>(raw() >> 11) / 9007199254740992.0;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    REQUIRE(same_bits(gen.normal(3.0, 0.5), 3.0 + 0.5 * z));
  }
}

TEST_CASE("the same seed gives bitwise-equal sequences, other seeds differ", "[optim]") {
  auto sequence = [](std::uint64_t seed) {
    Generator gen(seed);
    std::vector<double> v;
    for (int i = 0; i < 50; ++i) {
      v.push_back(gen.uniform(-1.0, 2.0));
      v.push_back(gen.normal(0.0, 3.0));
      v.push_back(static_cast<double>(gen.integer(7)));
    }
    const Array r = gen.randn({3, 4});
    v.insert(v.end(), r.begin(), r.end());
    for (std::size_t i : gen.permutation(20)) v.push_back(static_cast<double>(i));
    return v;
  };
  const auto a = sequence(42), b = sequence(42), c = sequence(43);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(same_bits(a[i], b[i]));
  CHECK(a != c);
  CHECK(a[0] != c[0]);

  // manual_seed restarts the sequence; the default generator is an ordinary Generator.
  Generator gen(7);
  const double first = gen.uniform();
  gen.uniform();
  gen.manual_seed(7);
  CHECK(same_bits(gen.uniform(), first));
  CHECK(gen.initial_seed() == 7);
  manual_seed(7);
  CHECK(same_bits(default_generator().uniform(), first));
}

TEST_CASE("Generator state can be saved and restored mid-sequence", "[optim]") {
  Generator gen(99);
  gen.normal();
  const std::string state = gen.get_state();
  const double x = gen.normal(), y = gen.uniform();
  Generator other(1);
  other.set_state(state);
  CHECK(same_bits(other.normal(), x));
  CHECK(same_bits(other.uniform(), y));
  CHECK_THROWS_AS(other.set_state("not a state"), Error);
}

TEST_CASE("uniform and normal have the right moments", "[optim]") {
  Generator gen(1);
  const std::size_t n = 200000;
  std::vector<double> u(n), z(n);
  for (double& x : u) x = gen.uniform(-2.0, 4.0);
  for (double& x : z) x = gen.normal(1.5, 2.0);
  CHECK(*std::min_element(u.begin(), u.end()) >= -2.0);
  CHECK(*std::max_element(u.begin(), u.end()) < 4.0);
  const Moments mu = moments(u), mz = moments(z);
  // U(−2, 4): mean 1, std 6/√12 ≈ 1.732. Standard errors: 0.004 (mean), 0.003 (std).
  CHECK(mu.mean == Approx(1.0).margin(0.02));
  CHECK(mu.std == Approx(6.0 / std::sqrt(12.0)).margin(0.015));
  // N(1.5, 2²): standard errors 0.0045 (mean), 0.003 (std).
  CHECK(mz.mean == Approx(1.5).margin(0.025));
  CHECK(mz.std == Approx(2.0).margin(0.015));
  // 68.27% within one standard deviation, 95.45% within two.
  const auto within = [&](double k) {
    return static_cast<double>(std::count_if(z.begin(), z.end(), [&](double x) { return std::abs(x - 1.5) < 2.0 * k; })) /
           static_cast<double>(n);
  };
  CHECK(within(1.0) == Approx(0.6827).margin(0.005));
  CHECK(within(2.0) == Approx(0.9545).margin(0.003));
}

TEST_CASE("integer(n) covers 0 .. n-1 evenly", "[optim]") {
  Generator gen(3);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t k = gen.integer(10);
    REQUIRE(k < 10);
    ++counts[k];
  }
  for (int c : counts) CHECK(std::abs(c - 10000) < 500);  // sd ≈ 95
  CHECK(gen.integer(1) == 0);
  CHECK_THROWS_WITH(gen.integer(0), Catch::Contains("n must be > 0"));
}

TEST_CASE("permutation and sample give distinct indices in range", "[optim]") {
  Generator gen(5);
  std::vector<std::size_t> p = gen.permutation(100);
  std::vector<std::size_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> iota(100);
  std::iota(iota.begin(), iota.end(), std::size_t{0});
  CHECK(sorted == iota);
  CHECK(p != iota);  // (a 1 in 100! chance of failing for a correct shuffle)

  std::vector<std::size_t> s = gen.sample(1000, 30);
  CHECK(s.size() == 30);
  std::sort(s.begin(), s.end());
  CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
  CHECK(s.back() < 1000);
  CHECK(gen.permutation(0).empty());
  CHECK(gen.sample(5, 0).empty());
  CHECK_THROWS_WITH(gen.sample(3, 4), Catch::Contains("cannot take 4 distinct indices from 3"));

  // Every position of a 3-element shuffle is uniform: each element lands first ≈ 1/3 of the time.
  std::vector<int> first(3, 0);
  for (int i = 0; i < 30000; ++i) ++first[gen.permutation(3)[0]];
  for (int c : first) CHECK(std::abs(c - 10000) < 400);  // sd ≈ 82
}

TEST_CASE("randn and rand fill arrays of a shape in row-major order", "[optim]") {
  Generator a(8), b(8);
  const Array r = a.randn({2, 3}, 1.0, 0.1);
  CHECK(Shape(r.shape().begin(), r.shape().end()) == Shape{2, 3});
  for (double x : r) CHECK(same_bits(x, b.normal(1.0, 0.1)));
  const Array u = a.rand({4}, 5.0, 6.0);
  for (double x : u) CHECK(same_bits(x, b.uniform(5.0, 6.0)));
}
