// Reference solution of exercise 7 (exercises/07_blocks.cpp): the blocks from LayerNorm's own parts.
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

#include "02_layer_norm_forward_solution.cpp"
#include "03_layer_norm_backward_solution.cpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;
using tapegrad::exercise::AddNormGrads;
using tapegrad::exercise::BlockGrads;

// F(h) = h Wᵀ + b over the last axis, and its backward: dh = dz W, dW = Σ dzᵀ h, db = Σ dz.
static Array sublayer(const Array& h, const Array& w, const Array& b) {
  const std::size_t D = w.shape()[0], rows = h.size() / D;
  Array z = Array::from_shape(h.shape());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i) {
      double s = b(i);
      for (std::size_t j = 0; j < D; ++j) s += h.data()[r * D + j] * w(i, j);
      z.data()[r * D + i] = s;
    }
  return z;
}
static Array sublayer_backward(const Array& dz, const Array& h, const Array& w, BlockGrads& g) {
  const std::size_t D = w.shape()[0], rows = h.size() / D;
  Array dh = Array::from_shape(h.shape());
  dh.fill(0);
  g.dw = Array::from_shape({D, D});
  g.db = Array::from_shape({D});
  g.dw.fill(0), g.db.fill(0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i) {
      g.db(i) += dz.data()[r * D + i];
      for (std::size_t j = 0; j < D; ++j) {
        g.dw(i, j) += dz.data()[r * D + i] * h.data()[r * D + j];
        dh.data()[r * D + j] += dz.data()[r * D + i] * w(i, j);
      }
    }
  return dh;
}

// Add & Norm: y = LN(x + fx); both inputs get the same gradient, the LN's dx.
Array add_and_norm_forward(const Array& x, const Array& fx, const Array& gamma, const Array& beta, double eps) {
  return layer_norm_forward(x + fx, gamma, beta, eps);
}
AddNormGrads add_and_norm_backward(const Array& dy, const Array& x, const Array& fx, const Array& gamma, double eps) {
  const NormGrads n = layer_norm_backward(dy, x + fx, gamma, eps);
  return {n.dx, n.dx, n.dgamma, n.dbeta};
}

// Post-Norm: y = LN(x + F(x)).
Array post_norm_forward(const Array& x, const Array& w, const Array& b, const Array& gamma, const Array& beta,
                        double eps) {
  return layer_norm_forward(x + sublayer(x, w, b), gamma, beta, eps);
}
BlockGrads post_norm_backward(const Array& dy, const Array& x, const Array& w, const Array& b, const Array& gamma,
                              const Array& beta, double eps) {
  (void)beta;
  BlockGrads g;
  const NormGrads n = layer_norm_backward(dy, x + sublayer(x, w, b), gamma, eps);
  g.dgamma = n.dgamma, g.dbeta = n.dbeta;
  g.dx = n.dx + sublayer_backward(n.dx, x, w, g);  // the residual path plus the path through F
  return g;
}

// Pre-Norm: y = x + F(LN(x)).
Array pre_norm_forward(const Array& x, const Array& w, const Array& b, const Array& gamma, const Array& beta,
                       double eps) {
  return x + sublayer(layer_norm_forward(x, gamma, beta, eps), w, b);
}
BlockGrads pre_norm_backward(const Array& dy, const Array& x, const Array& w, const Array& b, const Array& gamma,
                             const Array& beta, double eps) {
  (void)b;
  BlockGrads g;
  const Array h = layer_norm_forward(x, gamma, beta, eps);
  const Array dh = sublayer_backward(dy, h, w, g);
  const NormGrads n = layer_norm_backward(dh, x, gamma, eps);
  g.dgamma = n.dgamma, g.dbeta = n.dbeta;
  g.dx = dy + n.dx;  // the residual path plus the path through LN and F
  return g;
}
