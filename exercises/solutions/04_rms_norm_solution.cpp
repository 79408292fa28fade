// Reference solution of exercise 4 (exercises/04_rms_norm.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

// y = γ x / rms, rms = sqrt(mean(x²) + ε): no mean subtracted, no β.
Array rms_norm_forward(const Array& x, const Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (std::size_t j = 0; j < N; ++j) ms += x.data()[r * N + j] * x.data()[r * N + j];
    const double rms = std::sqrt(ms / N + eps);
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = gamma(j) * x.data()[r * N + j] / rms;
  }
  return y;
}

// g = γ·dy; dx = (g − x̂·mean(g·x̂)) / rms; dγ = Σ_rows dy·x̂; no dβ.
NormGrads rms_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  NormGrads out;
  out.dx = Array::from_shape(x.shape());
  out.dgamma = Array::from_shape({N});
  out.dgamma.fill(0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    const double* dyr = dy.data() + r * N;
    double ms = 0;
    for (std::size_t j = 0; j < N; ++j) ms += xr[j] * xr[j];
    const double rms = std::sqrt(ms / N + eps);
    double mean_gx = 0;
    for (std::size_t j = 0; j < N; ++j) {
      mean_gx += gamma(j) * dyr[j] * (xr[j] / rms) / N;
      out.dgamma(j) += dyr[j] * xr[j] / rms;
    }
    for (std::size_t j = 0; j < N; ++j)
      out.dx.data()[r * N + j] = (gamma(j) * dyr[j] - (xr[j] / rms) * mean_gx) / rms;
  }
  return out;
}
