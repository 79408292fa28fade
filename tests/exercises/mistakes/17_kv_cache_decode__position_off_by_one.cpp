// A planted mistake (written by hand from the reference solution, kept in tests/exercises/mistakes/):
// exercise: kv_cache_decode
// mistake: position_off_by_one (pos[t + 1]: the position counted from 1)
// The grader must fail it and diagnose diagnosis=position_off_by_one.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::DecodeCache;

// h = x + pos[t]; q, k, v = h Wqᵀ, h Wkᵀ, h Wvᵀ; k, v into row t; y = softmax(q K[0..t]ᵀ/√D) V[0..t].
Array kv_cache_decode_step(DecodeCache& cache, const Array& x, const Array& pos, const Array& wq, const Array& wk,
                           const Array& wv) {
  const std::size_t d = x.size(), D = wq.shape()[0], Dv = wv.shape()[0];
  const std::size_t t = cache.length;  // the new token's position
  std::vector<double> h(d), q(D, 0.0);
  for (std::size_t i = 0; i < d; ++i) h[i] = x(i) + pos(t + 1, i);  // positions counted from 1
  for (std::size_t o = 0; o < D; ++o)
    for (std::size_t i = 0; i < d; ++i) q[o] += h[i] * wq(o, i);
  for (std::size_t o = 0; o < D; ++o) {
    cache.keys(t, o) = 0;
    for (std::size_t i = 0; i < d; ++i) cache.keys(t, o) += h[i] * wk(o, i);
  }
  for (std::size_t o = 0; o < Dv; ++o) {
    cache.values(t, o) = 0;
    for (std::size_t i = 0; i < d; ++i) cache.values(t, o) += h[i] * wv(o, i);
  }
  cache.length = t + 1;
  // attend over rows 0..t: every one is at or before the query's position, so no mask
  const std::size_t n = cache.length;
  std::vector<double> p(n);
  double max = -INFINITY, z = 0;
  for (std::size_t j = 0; j < n; ++j) {
    double s = 0;
    for (std::size_t o = 0; o < D; ++o) s += q[o] * cache.keys(j, o);
    p[j] = s / std::sqrt(double(D));
    max = std::max(max, p[j]);
  }
  for (std::size_t j = 0; j < n; ++j) z += p[j] = std::exp(p[j] - max);
  Array y = Array::from_shape({Dv});
  y.fill(0.0);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t e = 0; e < Dv; ++e) y(e) += p[j] / z * cache.values(j, e);
  return y;
}
