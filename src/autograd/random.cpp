#include "tapegrad/autograd/random.hpp"

#include <cmath>
#include <numeric>
#include <sstream>
#include <utility>

namespace tapegrad {

void Generator::manual_seed(std::uint64_t seed) {
  engine_.seed(seed);
  seed_ = seed;
}

// The top 53 bits fill a double's mantissa exactly: k·2^-53 for k in [0, 2^53).
// (The low bits of a Mersenne Twister draw are as good as the high ones; the
// top ones are used by convention, as in NumPy and PyTorch.)
double Generator::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double Generator::uniform(double a, double b) { return a + (b - a) * uniform(); }

// Box–Muller: for u1, u2 ~ U(0, 1], U[0, 1), r = √(−2 ln u1) and θ = 2π u2,
// r cos θ and r sin θ are two independent N(0, 1) values. We use the cosine
// one only. u1 = 1 − U[0, 1) lies in (0, 1], so ln u1 is finite.
double Generator::normal(double mean, double std) {
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  return mean + std * z;
}

// Rejection sampling: x % n is uniform only if x is drawn from a range whose
// length is a multiple of n. 2^64 mod n = (−n) mod n draws at the bottom are
// rejected, leaving 2^64 − (2^64 mod n) values, a multiple of n.
std::uint64_t Generator::integer(std::uint64_t n) {
  if (n == 0) throw Error("Generator::integer: n must be > 0 (draws from [0, n)), got 0");
  const std::uint64_t threshold = (0 - n) % n;
  std::uint64_t x = next_u64();
  while (x < threshold) x = next_u64();
  return x % n;
}

Array Generator::randn(const Shape& shape, double mean, double std) {
  checked_numel("randn", shape);
  Array a = Array::from_shape(shape);
  for (double& v : a) v = normal(mean, std);
  return a;
}

Array Generator::rand(const Shape& shape, double a, double b) {
  checked_numel("rand", shape);
  Array r = Array::from_shape(shape);
  for (double& v : r) v = uniform(a, b);
  return r;
}

std::vector<std::size_t> Generator::permutation(std::size_t n) { return sample(n, n); }

// Partial Fisher–Yates: position i takes a uniformly chosen element of the
// not-yet-placed tail [i, n). After k steps the first k are a uniform sample.
// (The last position of a full shuffle has one choice, so it costs no draw.)
std::vector<std::size_t> Generator::sample(std::size_t n, std::size_t k) {
  if (k > n)
    throw Error("Generator::sample: cannot take " + std::to_string(k) + " distinct indices from " +
                std::to_string(n) + " (k must be <= n)");
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  for (std::size_t i = 0; i < k && i + 1 < n; ++i) std::swap(idx[i], idx[i + integer(n - i)]);
  idx.resize(k);
  return idx;
}

std::string Generator::get_state() const {
  std::ostringstream out;
  out << engine_;
  return out.str();
}

void Generator::set_state(const std::string& state) {
  std::istringstream in(state);
  std::mt19937_64 engine;
  in >> engine;
  if (!in) throw Error("Generator::set_state: the string is not a state saved by Generator::get_state()");
  engine_ = engine;
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tapegrad
