// Reference solution of exercise 11 (exercises/11_softmax.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Per row of the last axis: y = exp(x − max) / Σ exp(x − max).
Array softmax_forward(const Array& x) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    double* yr = y.data() + r * N;
    double m = xr[0], d = 0;
    for (std::size_t j = 1; j < N; ++j) m = std::max(m, xr[j]);
    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j] - m);  // subtract the max: no overflow
    for (std::size_t j = 0; j < N; ++j) yr[j] /= d;
  }
  return y;
}

// One pass for the max and the sum: when the max grows, the sum so far is rescaled to it.
Array softmax_online_forward(const Array& x) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * N;
    double m = -INFINITY, d = 0;
    for (std::size_t j = 0; j < N; ++j) {
      const double m_new = std::max(m, xr[j]);
      d = d * std::exp(m - m_new) + std::exp(xr[j] - m_new);
      m = m_new;
    }
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = std::exp(xr[j] - m) / d;
  }
  return y;
}
