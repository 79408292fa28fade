// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: softmax
// mistake: max_not_subtracted (exp(x) / Σ exp(x), in both forms)
// The grader must fail it and diagnose diagnosis=max_not_subtracted.
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
    double d = 0;
    for (std::size_t j = 0; j < N; ++j) d += yr[j] = std::exp(xr[j]);
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
    double d = 0;
    for (std::size_t j = 0; j < N; ++j) d += std::exp(xr[j]);
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = std::exp(xr[j]) / d;
  }
  return y;
}
