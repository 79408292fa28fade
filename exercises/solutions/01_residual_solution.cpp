// Reference solution of exercise 1 (exercises/01_residual.cpp): y = x + F(x), F(x) = x Wᵀ.
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::ResidualGrads;

// x (..., D), w (D, D): y = x + x Wᵀ.
Array residual_forward(const Array& x, const Array& w) {
  const std::size_t D = x.shape().back(), rows = x.size() / D;
  Array y = x;  // the identity path
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) y.data()[r * D + i] += x.data()[r * D + j] * w(i, j);  // + (x Wᵀ)_i
  return y;
}

// dx = dy (the highway) + dy W (through F); dW = Σ_rows dyᵀ x.
ResidualGrads residual_backward(const Array& dy, const Array& x, const Array& w) {
  const std::size_t D = x.shape().back(), rows = x.size() / D;
  ResidualGrads g;
  g.dx = dy;
  g.dw = Array::from_shape({D, D});
  g.dw.fill(0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) {
        g.dx.data()[r * D + j] += dy.data()[r * D + i] * w(i, j);
        g.dw(i, j) += dy.data()[r * D + i] * x.data()[r * D + j];
      }
  return g;
}
