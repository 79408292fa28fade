// Reference solution of exercise 13 (exercises/13_multi_head_attention.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Head h of position s is features h·Dh .. h·Dh + Dh − 1 of row (b, s): the split (B, S, H, Dh) -> (B, H, S, Dh)
// read in place. Per (b, h): scores = q kᵀ/√Dh, −∞ where masked, P = softmax per row, y = P v.
Array multi_head_attention_forward(const Array& q, const Array& k, const Array& v, std::size_t heads, bool causal,
                                   const std::vector<std::size_t>& lengths) {
  const std::size_t B = q.shape()[0], S = q.shape()[1], d = q.shape()[2], Dh = d / heads;
  const double scale = 1.0 / std::sqrt(double(Dh));
  Array y = Array::from_shape({B, S, d});
  y.fill(0.0);
  std::vector<double> p(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < S; ++i) {
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) {
          const bool allowed = (!causal || j <= i) && j < lengths[b];
          double s = 0;
          for (std::size_t e = 0; e < Dh; ++e) s += q(b, i, h * Dh + e) * k(b, j, h * Dh + e);
          p[j] = allowed ? s * scale : -INFINITY;  // masked before the softmax
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j < S; ++j)
          for (std::size_t e = 0; e < Dh; ++e) y(b, i, h * Dh + e) += p[j] / z * v(b, j, h * Dh + e);
      }
  return y;
}
