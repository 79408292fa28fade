// Why tapegrad computes the variance in two passes, never as E[x²] − E[x]².
// (Seed 003 calls the one-pass formula the "stable" one; it is the opposite.)
#include "helpers.hpp"

using namespace tapegrad;

namespace {
template <class T>
T one_pass_variance(const std::vector<T>& x) {  // E[x²] − E[x]²: the pitfall
  T s = 0, s2 = 0;
  for (T v : x) s += v, s2 += v * v;
  const T n = static_cast<T>(x.size());
  return s2 / n - (s / n) * (s / n);
}
template <class T>
T two_pass_variance(const std::vector<T>& x) {  // Σ(x − mean)² / n: what layer_norm does
  T s = 0;
  for (T v : x) s += v;
  const T mean = s / static_cast<T>(x.size());
  T d2 = 0;
  for (T v : x) d2 += (v - mean) * (v - mean);
  return d2 / static_cast<T>(x.size());
}
}  // namespace

TEST_CASE("variance: in float32 the one-pass formula loses everything on [1e4, 1e4+1, 1e4+2]", "[layers][numerics]") {
  const std::vector<float> x{1e4f, 1e4f + 1.0f, 1e4f + 2.0f};
  CHECK(one_pass_variance(x) == 0.0f);                       // catastrophic cancellation
  CHECK(two_pass_variance(x) == Approx(2.0f / 3.0f).epsilon(1e-6));
}

TEST_CASE("variance: in double the one-pass formula is wrong at a mean of 1e8", "[layers][numerics]") {
  const std::vector<double> x{1e8, 1e8 + 1.0, 1e8 + 2.0};
  CHECK(one_pass_variance(x) == 2.0);  // not 2/3
  CHECK(two_pass_variance(x) == Approx(2.0 / 3.0).epsilon(1e-15));
}

TEST_CASE("layer_norm stays finite and correct on inputs with a large mean", "[layers][numerics]") {
  Tensor x(Array({{1e8, 1e8 + 1.0, 1e8 + 2.0}, {-1e8, -1e8 - 0.5, -1e8 - 1.0}}));
  Tensor y = layer_norm(x, {3}, {}, {}, 1e-5);
  const double k = 1.0 / std::sqrt(2.0 / 3.0 + 1e-5);
  const double k2 = 0.5 / std::sqrt(2.0 / 12.0 + 1e-5);
  CHECK(y.value()(0, 0) == Approx(-k).epsilon(1e-9));
  CHECK(y.value()(0, 2) == Approx(k).epsilon(1e-9));
  CHECK(y.value()(1, 0) == Approx(k2).epsilon(1e-9));
  CHECK(y.value()(1, 2) == Approx(-k2).epsilon(1e-9));
  // The one-pass variance of the first row would be 2 (three times too large), so its output would be
  // about 0.707 instead of 1.2247; and a negative one-pass variance would give NaN after the rsqrt.
  CHECK(std::abs(y.value()(0, 2) - 1.0 / std::sqrt(2.0 + 1e-5)) > 0.5);
}
