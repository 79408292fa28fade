// Reference solution of exercise 3 (exercises/03_layer_norm_backward.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

// g = γ·dy; dx = (g − mean(g) − x̂·mean(g·x̂)) / σ; dγ = Σ_rows dy·x̂; dβ = Σ_rows dy.
NormGrads layer_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  NormGrads out;
  out.dx = Array::from_shape(x.shape());
  out.dgamma = Array::from_shape({N});
  out.dbeta = Array::from_shape({N});
  out.dgamma.fill(0.0);
  out.dbeta.fill(0.0);
  std::vector<double> xhat(N), g(N);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    const double* dyr = dy.data() + r * N;
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < N; ++j) mean += xr[j];
    mean /= N;
    for (std::size_t j = 0; j < N; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= N;
    const double sigma = std::sqrt(var + eps);
    double mean_g = 0, mean_gx = 0;
    for (std::size_t j = 0; j < N; ++j) {
      xhat[j] = (xr[j] - mean) / sigma;
      g[j] = gamma(j) * dyr[j];
      mean_g += g[j] / N;
      mean_gx += g[j] * xhat[j] / N;
      out.dgamma(j) += dyr[j] * xhat[j];
      out.dbeta(j) += dyr[j];
    }
    for (std::size_t j = 0; j < N; ++j) out.dx.data()[r * N + j] = (g[j] - mean_g - xhat[j] * mean_gx) / sigma;
  }
  return out;
}
