// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: softmax_backward
// mistake: jacobian_diagonal_only (y(1 − y) dy)
// The grader must fail it and diagnose diagnosis=jacobian_diagonal_only.
#include <cmath>
#include <string>

#include "tapegrad/exercise.hpp"

// Over the last axis: dx = y ⊙ (dy − Σ_j dy_j y_j).
tapegrad::Array softmax_backward(const tapegrad::Array& dy, const tapegrad::Array& y) {
  const std::size_t N = y.shape().back(), rows = y.size() / N;
  tapegrad::Array dx = tapegrad::Array::from_shape(y.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (std::size_t j = 0; j < N; ++j) dot += dy.data()[r * N + j] * y.data()[r * N + j];
    for (std::size_t j = 0; j < N; ++j) dx.data()[r * N + j] = y.data()[r * N + j] * (1 - y.data()[r * N + j]) * dy.data()[r * N + j];
  }
  return dx;
}
