// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: softmax
// mistake: wrong_axis (the sum over the first axis, xtensor reductions)
// The grader must fail it and diagnose diagnosis=wrong_axis.
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Per row of the last axis: y = exp(x − max) / Σ exp(x − max).
Array softmax_forward(const Array& x) {
  const std::size_t last = x.dimension() - 1;
  Array m = xt::amax(x, {last}, xt::keep_dims | xt::evaluation_strategy::immediate);
  Array e = xt::exp(x - m);
  Array d = xt::sum(e, {0}, xt::keep_dims | xt::evaluation_strategy::immediate);  // the first axis
  return e / d;
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
