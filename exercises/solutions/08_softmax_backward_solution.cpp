// Reference solution of exercise 8 (exercises/08_softmax_backward.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Over the last axis: dx = y ⊙ (dy − Σ_j dy_j y_j).
Array softmax_backward(const Array& dy, const Array& y) {
  const std::size_t N = y.shape().back(), rows = y.size() / N;
  Array dx = Array::from_shape(y.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (std::size_t j = 0; j < N; ++j) dot += dy.data()[r * N + j] * y.data()[r * N + j];
    for (std::size_t j = 0; j < N; ++j) dx.data()[r * N + j] = y.data()[r * N + j] * (dy.data()[r * N + j] - dot);
  }
  return dx;
}
