// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: multi_head_attention
// mistake: heads_split_without_transpose ((B, S, d) reshaped to (B, H, S, Dh))
// The grader must fail it and diagnose diagnosis=heads_split_without_transpose.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// The heads split by a reshape alone: (B, S, d) -> (B, H, S, Dh), and merged back the same way.
Array multi_head_attention_forward(const Array& q, const Array& k, const Array& v, std::size_t heads, bool causal,
                                   const std::vector<std::size_t>& lengths) {
  const std::size_t B = q.shape()[0], S = q.shape()[1], d = q.shape()[2], Dh = d / heads;
  const double scale = 1.0 / std::sqrt(double(Dh));
  Array qh = q, kh = k, vh = v;
  qh.reshape({B, heads, S, Dh});
  kh.reshape({B, heads, S, Dh});
  vh.reshape({B, heads, S, Dh});
  Array y = xt::zeros<double>({B, heads, S, Dh});
  std::vector<double> p(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < S; ++i) {
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < Dh; ++e) s += qh(b, h, i, e) * kh(b, h, j, e);
          p[j] = (!causal || j <= i) && j < lengths[b] ? s * scale : -INFINITY;
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j < S; ++j)
          for (std::size_t e = 0; e < Dh; ++e) y(b, h, i, e) += p[j] / z * vh(b, h, j, e);
      }
  y.reshape({B, S, d});
  return y;
}
