// dropout and nn::Dropout: statistics of the mask, the 1/(1 − p) scaling, eval identity,
// reproducibility from the Generator, the backward through the saved mask, errors.
#include <cmath>

#include "helpers.hpp"

using namespace tapegrad;
using tapegrad::testing::param;

namespace {

std::size_t count_nonzero(const Array& a) {
  std::size_t n = 0;
  for (double v : a) n += v != 0.0;
  return n;
}

}  // namespace

TEST_CASE("dropout: kept fraction within a binomial bound, kept entries scaled by 1/(1-p)", "[ops][dropout]") {
  const std::size_t n = 100000;
  const double p = 0.3;
  Generator gen(123);
  Tensor x = ones({n});
  Tensor y = dropout(x, p, true, gen);
  // kept ~ Binomial(n, 1 − p): mean n(1 − p), sd √(n p (1 − p)) ≈ 145; 5 sd is a 1-in-3.5-million miss.
  const double kept = static_cast<double>(count_nonzero(y.value()));
  const double sd = std::sqrt(n * p * (1.0 - p));
  CHECK(std::abs(kept - n * (1.0 - p)) <= 5.0 * sd);
  for (double v : y.value()) CHECK((v == 0.0 || v == 1.0 / (1.0 - p)));
}

TEST_CASE("dropout: E[y] = x (inverted dropout needs no rescaling at eval)", "[ops][dropout]") {
  const std::size_t n = 100000;
  const double p = 0.5;
  Generator gen(7);
  Tensor x = full({n}, 2.0);
  const Array y = dropout(x, p, true, gen).value();
  // mean(y) = 2·kept/(n(1 − p)); its sd is 2·√(p / ((1 − p) n)) ≈ 0.0063. Bound: 5 sd.
  double mean = 0.0;
  for (double v : y) mean += v / static_cast<double>(n);
  CHECK(std::abs(mean - 2.0) <= 5.0 * 2.0 * std::sqrt(p / ((1.0 - p) * n)));
}

TEST_CASE("dropout: identity in eval and for p = 0, zeros for p = 1", "[ops][dropout]") {
  Tensor x = param({3, 4}, 1, "x");
  Generator gen(5);
  const std::string state = gen.get_state();
  CHECK(dropout(x, 0.5, false, gen).value() == x.value());
  CHECK(dropout(x, 0.0, true, gen).value() == x.value());
  CHECK(gen.get_state() == state);  // neither drew from the generator

  Tensor y = dropout(x, 1.0, true, gen);
  CHECK(y.value() == Array(xt::zeros<double>({3, 4})));  // no 0/0 NaN
  y.backward(Array(xt::ones<double>({3, 4})));
  CHECK(x.grad() == Array(xt::zeros<double>({3, 4})));
}

TEST_CASE("dropout: the same seed gives the same mask", "[ops][dropout]") {
  Tensor x = param({4, 5}, 2, "x");
  Generator a(99), b(99), c(100);
  const Array ya = dropout(x, 0.4, true, a).value();
  CHECK(dropout(x, 0.4, true, b).value() == ya);  // bit for bit
  CHECK(dropout(x, 0.4, true, c).value() != ya);
  Generator d(99);
  CHECK(ya == x.value() * dropout_scaled_mask({4, 5}, 0.4, d));  // the mask is what dropout applies
}

TEST_CASE("dropout: backward reuses the mask (gradcheck with the generator re-seeded)", "[ops][dropout]") {
  Tensor x = param({3, 5}, 3, "x");
  for (double p : {0.2, 0.5, 0.9}) {
    // Every evaluation starts the generator from the same seed: the same mask each time.
    REQUIRE_GRADCHECK(
        [p](auto& in) {
          Generator gen(11);
          return dropout(in[0], p, true, gen);
        },
        std::vector<Tensor>{x});
  }
  // Given the mask: dx = dy ⊙ mask / (1 − p).
  Generator gen(11);
  Tensor leaf = param({3, 5}, 4, "leaf");
  const Array mask = dropout_scaled_mask({3, 5}, 0.5, gen);
  const Array dy = tapegrad::testing::randn({3, 5}, 5);
  dropout_backward(dy, leaf, mask);
  CHECK(leaf.grad() == Array(dy * mask));
  for (std::size_t i = 0; i < mask.size(); ++i) CHECK((mask.data()[i] == 0.0 || mask.data()[i] == 2.0));
}

TEST_CASE("dropout: p outside [0, 1] is an error naming the op and the value", "[ops][dropout]") {
  Tensor x = ones({3});
  REQUIRE_THROWS_WITH(dropout(x, 1.5), Catch::Contains("dropout") && Catch::Contains("p=1.5") &&
                                           Catch::Contains("[0, 1]"));
  REQUIRE_THROWS_WITH(dropout(x, -0.1), Catch::Contains("dropout") && Catch::Contains("p=-0.1"));
  REQUIRE_THROWS_WITH(dropout(x, std::nan("")), Catch::Contains("p=nan"));
  REQUIRE_THROWS_WITH(dropout(x, 2.0, false), Catch::Contains("p=2"));  // checked in eval too
  REQUIRE_THROWS_WITH(nn::Dropout(1.2), Catch::Contains("Dropout") && Catch::Contains("p=1.2"));
}

TEST_CASE("nn::Dropout: drops in train(), identity in eval(), draws from its generator", "[nn][dropout]") {
  Generator gen(21);
  nn::Dropout drop(0.5, gen);
  CHECK(drop.parameters().empty());
  CHECK(drop.to_string().find("p=0.5") != std::string::npos);
  Tensor x = param({200}, 6, "x");
  Tensor y = drop(x);
  const std::size_t kept = count_nonzero(y.value());
  CHECK(kept > 50);
  CHECK(kept < 150);
  Generator same(21);
  CHECK(y.value() == dropout(x, 0.5, true, same).value());
  drop.eval();
  CHECK(drop(x).value() == x.value());
  drop.train();
  CHECK(drop(x).value() != x.value());
}
