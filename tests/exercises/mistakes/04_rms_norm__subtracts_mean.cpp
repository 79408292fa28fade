// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: rms_norm
// mistake: subtracts_mean (LayerNorm written instead)
// The grader must fail it and diagnose diagnosis=subtracts_mean.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad/exercise.hpp"

// "RMSNorm" written as LayerNorm without beta: the mean is subtracted.
tapegrad::Array rms_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < N; ++j) mean += x.data()[r * N + j] / N;
    for (std::size_t j = 0; j < N; ++j) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean) / N;
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * (x.data()[r * N + j] - mean) / std::sqrt(var + eps);
  }
  return y;
}

tapegrad::exercise::NormGrads rms_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                const tapegrad::Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  tapegrad::exercise::NormGrads out;
  out.dx = tapegrad::Array::from_shape(x.shape());
  out.dgamma = tapegrad::Array::from_shape({N});
  out.dgamma.fill(0.0);
  std::vector<double> xhat(N);
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0, mean_g = 0, mean_gx = 0;
    for (std::size_t j = 0; j < N; ++j) mean += x.data()[r * N + j] / N;
    for (std::size_t j = 0; j < N; ++j) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean) / N;
    const double sigma = std::sqrt(var + eps);
    for (std::size_t j = 0; j < N; ++j) {
      xhat[j] = (x.data()[r * N + j] - mean) / sigma;
      const double g = gamma(j) * dy.data()[r * N + j];
      mean_g += g / N;
      mean_gx += g * xhat[j] / N;
      out.dgamma(j) += dy.data()[r * N + j] * xhat[j];
    }
    for (std::size_t j = 0; j < N; ++j)
      out.dx.data()[r * N + j] = (gamma(j) * dy.data()[r * N + j] - mean_g - xhat[j] * mean_gx) / sigma;
  }
  return out;
}
