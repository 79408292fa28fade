// A C++ pitfall the grader names at its line: an accumulator that is not initialised (double mean;).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    double mean;  // not initialised: the warning names line 15, where the value is first read whole
    for (std::size_t j = 0; j < N; ++j) mean += xr[j];
    mean /= N;
    double var = 0;
    for (std::size_t j = 0; j < N; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= N;
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * (xr[j] - mean) * inv_std + beta(j);
  }
  return y;
}
