// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: grouped_query_attention
// mistake: kv_heads_tiled (k and v tiled (torch's repeat) to H heads first)
// The grader must fail it and diagnose diagnosis=kv_heads_tiled.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// k and v repeated to H heads as torch's k.repeat(1, n_rep, 1, 1): the kv heads tiled, 0, 1, 0, 1, ...
Array grouped_query_attention_forward(const Array& q, const Array& k, const Array& v, bool causal) {
  const std::size_t B = q.shape()[0], H = q.shape()[1], S = q.shape()[2], D = q.shape()[3];
  const std::size_t n_rep = H / k.shape()[1];
  const std::size_t Hkv = k.shape()[1];
  Array kr = xt::zeros<double>(q.shape()), vr = xt::zeros<double>(q.shape());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t r = 0; r < n_rep; ++r)  // copy r of all the kv heads: heads r·Hkv .. r·Hkv + Hkv − 1
      for (std::size_t j = 0; j < Hkv; ++j)
        for (std::size_t i = 0; i < S; ++i)
          for (std::size_t e = 0; e < D; ++e) kr(b, r * Hkv + j, i, e) = k(b, j, i, e), vr(b, r * Hkv + j, i, e) = v(b, j, i, e);
  const double scale = 1.0 / std::sqrt(double(D));
  Array y = xt::zeros<double>(q.shape());
  std::vector<double> p(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < S; ++i) {
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < D; ++e) s += q(b, h, i, e) * kr(b, h, j, e);
          p[j] = !causal || j <= i ? s * scale : -INFINITY;
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j < S; ++j)
          for (std::size_t e = 0; e < D; ++e) y(b, h, i, e) += p[j] / z * vr(b, h, j, e);
      }
  return y;
}
