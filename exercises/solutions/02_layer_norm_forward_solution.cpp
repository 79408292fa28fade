// Reference solution of exercise 2 (exercises/02_layer_norm_forward.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// y = γ (x − μ) / sqrt(σ² + ε) + β over the last axis; σ² = mean((x − μ)²), two passes.
Array layer_norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    double mean = 0;
    for (std::size_t j = 0; j < N; ++j) mean += xr[j];
    mean /= N;
    double var = 0;
    for (std::size_t j = 0; j < N; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= N;  // biased: divide by N
    const double inv_std = 1.0 / std::sqrt(var + eps);  // eps under the root
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * (xr[j] - mean) * inv_std + beta(j);
  }
  return y;
}
