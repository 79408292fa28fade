// Reference solution of exercise 15 (exercises/15_grouped_query_attention.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// Query head h reads kv head h / n_rep (repeat_interleave), then plain attention per (b, h).
Array grouped_query_attention_forward(const Array& q, const Array& k, const Array& v, bool causal) {
  const std::size_t B = q.shape()[0], H = q.shape()[1], S = q.shape()[2], D = q.shape()[3];
  const std::size_t n_rep = H / k.shape()[1];
  const double scale = 1.0 / std::sqrt(double(D));
  Array y = Array::from_shape(q.shape());
  y.fill(0.0);
  std::vector<double> p(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t g = h / n_rep;  // the kv head this query head shares
      for (std::size_t i = 0; i < S; ++i) {
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < D; ++e) s += q(b, h, i, e) * k(b, g, j, e);
          p[j] = !causal || j <= i ? s * scale : -INFINITY;
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j < S; ++j)
          for (std::size_t e = 0; e < D; ++e) y(b, h, i, e) += p[j] / z * v(b, g, j, e);
      }
    }
  return y;
}
