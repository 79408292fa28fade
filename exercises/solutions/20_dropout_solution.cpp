// Reference solution of exercise 20 (exercises/20_dropout.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Training: y = x ⊙ mask / (1 − p) (0 for p = 1); eval: y = x.
Array dropout_forward(const Array& x, const Array& mask, double p, bool training) {
  if (!training) return x;
  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  Array y = Array::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = x.data()[i] * mask.data()[i] * scale;
  return y;
}

// The same mask and scale: dx = dy ⊙ mask / (1 − p); eval: dx = dy.
Array dropout_backward(const Array& dy, const Array& mask, double p, bool training) {
  if (!training) return dy;
  const double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  Array dx = Array::from_shape(dy.shape());
  for (std::size_t i = 0; i < dy.size(); ++i) dx.data()[i] = dy.data()[i] * mask.data()[i] * scale;
  return dx;
}
