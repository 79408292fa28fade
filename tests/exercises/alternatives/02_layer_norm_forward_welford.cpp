// A correct LayerNorm forward written differently from the reference: one pass with Welford's update
// of the mean and the sum of squared deviations (stable on a large mean, unlike E[x²] − E[x]²).
// The grader must pass it.
// exercise: layer_norm_forward
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, m2 = 0;  // Welford: after k values, mean of them and Σ(x − mean)²
    for (std::size_t k = 0; k < N; ++k) {
      const double v = x.data()[r * N + k], delta = v - mean;
      mean += delta / double(k + 1);
      m2 += delta * (v - mean);
    }
    const double sigma = std::sqrt(m2 / double(N) + eps);
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * ((x.data()[r * N + j] - mean) / sigma) + beta(j);
  }
  return y;
}
