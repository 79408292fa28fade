// Single-head attention's backward on loops, with the slips issue 46 found left `unknown`:
// SLIP_SCALE_MISSING_IN_DQ, SLIP_SCALE_MISSING_IN_DK (the 1/√D in one of the two only), SLIP_DK_NOT_TRANSPOSED
// (dk = dS q), SLIP_ROW_SUM_MISSING (dS = P ⊙ dP), SLIP_MAX_NOT_SUBTRACTED (P = exp(s)/Σ exp(s)).
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
#if defined(SLIP_MAX_NOT_SUBTRACTED)
    (void)max;
    for (std::size_t j = 0; j < Sk; ++j) z += P(i, j) = std::exp(P(i, j));
#else
    for (std::size_t j = 0; j < Sk; ++j) z += P(i, j) = std::exp(P(i, j) - max);  // subtract the max: no overflow
#endif
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
#if defined(SLIP_ROW_SUM_MISSING)
      const double dS = P(i, j) * dP[j];
      (void)dot;
#else
      const double dS = P(i, j) * (dP[j] - dot);
#endif
      for (std::size_t d = 0; d < D; ++d) {
#if defined(SLIP_SCALE_MISSING_IN_DQ)
        g.dq(i, d) += dS * k(j, d);
#else
        g.dq(i, d) += dS * k(j, d) * scale;
#endif
#if defined(SLIP_SCALE_MISSING_IN_DK)
        g.dk(j, d) += dS * q(i, d);
#elif defined(SLIP_DK_NOT_TRANSPOSED)
        g.dk(i, d) += dS * q(j, d) * scale;
#else
        g.dk(j, d) += dS * q(i, d) * scale;
#endif
      }
    }
  }
  return g;
}
