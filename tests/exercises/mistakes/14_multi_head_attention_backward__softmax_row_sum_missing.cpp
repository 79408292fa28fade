// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: multi_head_attention_backward
// mistake: softmax_row_sum_missing (dS = P ⊙ dP)
// The grader must fail it and diagnose diagnosis=softmax_row_sum_missing.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AttentionGrads;

// Per (b, h), head h being features h·Dh .. h·Dh + Dh − 1: P recomputed (max subtracted, −∞ where masked);
// dv = Pᵀ dy; dP = dy vᵀ; dS = P ⊙ (dP − rowsum(dP ⊙ P)); dq = dS k/√Dh; dk = dSᵀ q/√Dh.
AttentionGrads multi_head_attention_backward(const Array& dy, const Array& q, const Array& k, const Array& v,
                                             std::size_t heads, bool causal, const std::vector<std::size_t>& lengths) {
  const std::size_t B = q.shape()[0], S = q.shape()[1], d = q.shape()[2], Dh = d / heads;
  const double scale = 1.0 / std::sqrt(double(Dh));
  AttentionGrads g;
  g.dq = Array::from_shape(q.shape()), g.dk = Array::from_shape(k.shape()), g.dv = Array::from_shape(v.shape());
  g.dq.fill(0), g.dk.fill(0), g.dv.fill(0);
  std::vector<double> P(S), dP(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t f = h * Dh;  // the head's first feature
      for (std::size_t i = 0; i < S; ++i) {
        double m = -INFINITY, z = 0, dot = 0;
        for (std::size_t j = 0; j < S; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < Dh; ++e) s += q(b, i, f + e) * k(b, j, f + e);
          P[j] = (!causal || j <= i) && j < lengths[b] ? s * scale : -INFINITY;
          m = std::max(m, P[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += P[j] = std::exp(P[j] - m);
        for (std::size_t j = 0; j < S; ++j) {
          P[j] /= z;
          dP[j] = 0;
          for (std::size_t e = 0; e < Dh; ++e) {
            dP[j] += dy(b, i, f + e) * v(b, j, f + e);
            g.dv(b, j, f + e) += P[j] * dy(b, i, f + e);
          }
          dot += dP[j] * P[j];
        }
        for (std::size_t j = 0; j < S; ++j) {
          const double dS = P[j] * dP[j];
          for (std::size_t e = 0; e < Dh; ++e) {
            g.dq(b, i, f + e) += dS * k(b, j, f + e) * scale;
            g.dk(b, j, f + e) += dS * q(b, i, f + e) * scale;
          }
        }
      }
    }
  return g;
}
