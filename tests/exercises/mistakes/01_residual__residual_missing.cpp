// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: residual
// mistake: residual_missing (the identity path left out: y = F(x), dx without dy)
// The grader must fail it and diagnose diagnosis=residual_missing.
#include <cmath>
#include <string>

#include "tapegrad/exercise.hpp"

// x (..., D), w (D, D): y = x + x Wᵀ.
tapegrad::Array residual_forward(const tapegrad::Array& x, const tapegrad::Array& w) {
  const std::size_t D = x.shape().back(), rows = x.size() / D;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  y.fill(0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) y.data()[r * D + i] += x.data()[r * D + j] * w(i, j);  // + (x Wᵀ)_i
  return y;
}

// dx = dy (the highway) + dy W (through F); dW = Σ_rows dyᵀ x.
tapegrad::exercise::ResidualGrads residual_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                    const tapegrad::Array& w) {
  const std::size_t D = x.shape().back(), rows = x.size() / D;
  tapegrad::exercise::ResidualGrads g;
  g.dx = tapegrad::Array::from_shape(x.shape());
  g.dx.fill(0.0);
  g.dw = tapegrad::Array::from_shape({D, D});
  g.dw.fill(0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i)
      for (std::size_t j = 0; j < D; ++j) {
        g.dx.data()[r * D + j] += dy.data()[r * D + i] * w(i, j);
        g.dw(i, j) += dy.data()[r * D + i] * x.data()[r * D + j];
      }
  return g;
}
