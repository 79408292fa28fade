// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: softmax_backward
// mistake: wrong_axis (the sum over the rows)
// The grader must fail it and diagnose diagnosis=wrong_axis.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad/exercise.hpp"

tapegrad::Array softmax_backward(const tapegrad::Array& dy, const tapegrad::Array& y) {
  const std::size_t N = y.shape().back(), rows = y.size() / N;
  tapegrad::Array dx = tapegrad::Array::from_shape(y.shape());
  std::vector<double> dot(N, 0.0);  // the sum over the rows, per column
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < N; ++j) dot[j] += dy.data()[r * N + j] * y.data()[r * N + j];
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < N; ++j) dx.data()[r * N + j] = y.data()[r * N + j] * (dy.data()[r * N + j] - dot[j]);
  return dx;
}
