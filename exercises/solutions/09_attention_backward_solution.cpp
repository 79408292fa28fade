// Reference solution of exercise 9 (exercises/09_attention_backward.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AttentionGrads;

// S = q kᵀ/√D, P = softmax(S) per row, y = P v.
// dv = Pᵀ dy; dP = dy vᵀ; dS = P ⊙ (dP − rowsum(dP ⊙ P)); dq = dS k/√D; dk = dSᵀ q/√D.
AttentionGrads attention_backward(const Array& dy, const Array& q, const Array& k, const Array& v) {
  const std::size_t Sq = q.shape()[0], Sk = k.shape()[0], D = q.shape()[1], Dv = v.shape()[1];
  const double scale = 1.0 / std::sqrt(double(D));
  Array P = Array::from_shape({Sq, Sk});
  for (std::size_t i = 0; i < Sq; ++i) {
    double max = -INFINITY, z = 0;
    for (std::size_t j = 0; j < Sk; ++j) {
      double s = 0;
      for (std::size_t d = 0; d < D; ++d) s += q(i, d) * k(j, d);
      P(i, j) = s * scale;
      max = std::max(max, P(i, j));
    }
    for (std::size_t j = 0; j < Sk; ++j) z += P(i, j) = std::exp(P(i, j) - max);  // subtract the max: no overflow
    for (std::size_t j = 0; j < Sk; ++j) P(i, j) /= z;
  }
  AttentionGrads g;
  g.dq = Array::from_shape(q.shape()), g.dk = Array::from_shape(k.shape());
  g.dv = Array::from_shape(v.shape());
  g.dq.fill(0), g.dk.fill(0), g.dv.fill(0);
  for (std::size_t i = 0; i < Sq; ++i) {
    std::vector<double> dP(Sk, 0.0);
    double dot = 0;
    for (std::size_t j = 0; j < Sk; ++j) {
      for (std::size_t e = 0; e < Dv; ++e) {
        dP[j] += dy(i, e) * v(j, e);
        g.dv(j, e) += P(i, j) * dy(i, e);
      }
      dot += dP[j] * P(i, j);
    }
    for (std::size_t j = 0; j < Sk; ++j) {
      const double dS = P(i, j) * (dP[j] - dot);
      for (std::size_t d = 0; d < D; ++d) {
        g.dq(i, d) += dS * k(j, d) * scale;
        g.dk(j, d) += dS * q(i, d) * scale;
      }
    }
  }
  return g;
}
