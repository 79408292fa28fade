// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: blocks
// mistake: residual_missing (Post-Norm without the residual: LN(F(x)))
// The grader must fail it and diagnose diagnosis=residual_missing.
#include <cmath>
#include <string>

#include "tapegrad/exercise.hpp"

#include "../../../exercises/solutions/02_layer_norm_forward_solution.cpp"
#include "../../../exercises/solutions/03_layer_norm_backward_solution.cpp"

// F(h) = h Wᵀ + b over the last axis, and its backward: dh = dz W, dW = Σ dzᵀ h, db = Σ dz.
static tapegrad::Array sublayer(const tapegrad::Array& h, const tapegrad::Array& w, const tapegrad::Array& b) {
  const std::size_t D = w.shape()[0], rows = h.size() / D;
  tapegrad::Array z = tapegrad::Array::from_shape(h.shape());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < D; ++i) {
      double s = b(i);
      for (std::size_t j = 0; j < D; ++j) s += h.data()[r * D + j] * w(i, j);
      z.data()[r * D + i] = s;
    }
  return z;
}
static tapegrad::Array sublayer_backward(const tapegrad::Array& dz, const tapegrad::Array& h, const tapegrad::Array& w,
                                         tapegrad::exercise::BlockGrads& g) {
  const std::size_t D = w.shape()[0], rows = h.size() / D;
  tapegrad::Array dh = tapegrad::Array::from_shape(h.shape());
  dh.fill(0);
  g.dw = tapegrad::Array::from_shape({D, D});
  g.db = tapegrad::Array::from_shape({D});
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
tapegrad::Array add_and_norm_forward(const tapegrad::Array& x, const tapegrad::Array& fx, const tapegrad::Array& gamma,
                                     const tapegrad::Array& beta, double eps) {
  return layer_norm_forward(x + fx, gamma, beta, eps);
}
tapegrad::exercise::AddNormGrads add_and_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                       const tapegrad::Array& fx, const tapegrad::Array& gamma,
                                                       double eps) {
  const tapegrad::exercise::NormGrads n = layer_norm_backward(dy, x + fx, gamma, eps);
  return {n.dx, n.dx, n.dgamma, n.dbeta};
}

// Post-Norm: y = LN(x + F(x)).
tapegrad::Array post_norm_forward(const tapegrad::Array& x, const tapegrad::Array& w, const tapegrad::Array& b,
                                  const tapegrad::Array& gamma, const tapegrad::Array& beta, double eps) {
  return layer_norm_forward(sublayer(x, w, b), gamma, beta, eps);
}
tapegrad::exercise::BlockGrads post_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& w, const tapegrad::Array& b,
                                                  const tapegrad::Array& gamma, const tapegrad::Array& beta,
                                                  double eps) {
  (void)beta;
  tapegrad::exercise::BlockGrads g;
  const tapegrad::exercise::NormGrads n = layer_norm_backward(dy, sublayer(x, w, b), gamma, eps);
  g.dgamma = n.dgamma, g.dbeta = n.dbeta;
  g.dx = sublayer_backward(n.dx, x, w, g);  // the residual path plus the path through F
  return g;
}

// Pre-Norm: y = x + F(LN(x)).
tapegrad::Array pre_norm_forward(const tapegrad::Array& x, const tapegrad::Array& w, const tapegrad::Array& b,
                                 const tapegrad::Array& gamma, const tapegrad::Array& beta, double eps) {
  return x + sublayer(layer_norm_forward(x, gamma, beta, eps), w, b);
}
tapegrad::exercise::BlockGrads pre_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                 const tapegrad::Array& w, const tapegrad::Array& b,
                                                 const tapegrad::Array& gamma, const tapegrad::Array& beta,
                                                 double eps) {
  (void)b;
  tapegrad::exercise::BlockGrads g;
  const tapegrad::Array h = layer_norm_forward(x, gamma, beta, eps);
  const tapegrad::Array dh = sublayer_backward(dy, h, w, g);
  const tapegrad::exercise::NormGrads n = layer_norm_backward(dh, x, gamma, eps);
  g.dgamma = n.dgamma, g.dbeta = n.dbeta;
  g.dx = dy + n.dx;  // the residual path plus the path through LN and F
  return g;
}
