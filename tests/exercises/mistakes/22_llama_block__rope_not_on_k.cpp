// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: llama_block
// mistake: rope_not_on_k (RoPE on q only)
// The grader must fail it and diagnose diagnosis=rope_not_on_k.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::LlamaBlockWeights;

// The parts, each one of your earlier exercises, on rows: x (rows, n) as a flat row-major std::vector.

// Exercise 4: y = x / sqrt(mean(x²) + ε) ⊙ weight, per row.
static std::vector<double> rms_norm(const std::vector<double>& x, const Array& weight, double eps) {
  const std::size_t n = weight.size(), rows = x.size() / n;
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (std::size_t j = 0; j < n; ++j) ms += x[r * n + j] * x[r * n + j] / double(n);
    for (std::size_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / std::sqrt(ms + eps) * weight(j);
  }
  return y;
}

// x Wᵀ, W (out, in) as nn.Linear.
static std::vector<double> linear(const std::vector<double>& x, const Array& w) {
  const std::size_t out = w.shape()[0], in = w.shape()[1], rows = x.size() / in;
  std::vector<double> y(rows * out, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t o = 0; o < out; ++o)
      for (std::size_t i = 0; i < in; ++i) y[r * out + o] += x[r * in + i] * w(o, i);
  return y;
}

// Exercise 16, half-split: in each head's slice (D features) of row r at position pos, the pair (i, i + D/2)
// rotated by pos·θ_i, θ_i = base^(−2i/D). t (B·S, heads·D), row b·S + s at position s.
static void rope_half_split(std::vector<double>& t, std::size_t S, std::size_t heads, std::size_t D, double base) {
  for (std::size_t r = 0; r < t.size() / (heads * D); ++r)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < D / 2; ++i) {
        const double angle = double(r % S) * std::pow(base, -2.0 * double(i) / double(D));
        double& a = t[r * heads * D + h * D + i];
        double& b = t[r * heads * D + h * D + i + D / 2];
        const double a0 = a, b0 = b;
        a = a0 * std::cos(angle) - b0 * std::sin(angle);
        b = a0 * std::sin(angle) + b0 * std::cos(angle);
      }
}

// Exercise 15: causal attention per batch and query head h, which reads kv head h / n_rep.
// q (B·S, H·D), k and v (B·S, Hkv·D) -> (B·S, H·D).
static std::vector<double> grouped_query_attention(const std::vector<double>& q, const std::vector<double>& k,
                                                   const std::vector<double>& v, std::size_t B, std::size_t S,
                                                   std::size_t H, std::size_t Hkv, std::size_t D) {
  const std::size_t n_rep = H / Hkv;
  const double scale = 1.0 / std::sqrt(double(D));
  std::vector<double> y(q.size(), 0.0);
  std::vector<double> p(S);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t g = h / n_rep;
      for (std::size_t i = 0; i < S; ++i) {
        const double* qi = &q[(b * S + i) * H * D + h * D];
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j <= i; ++j) {  // causal: keys 0..i
          const double* kj = &k[(b * S + j) * Hkv * D + g * D];
          double s = 0;
          for (std::size_t e = 0; e < D; ++e) s += qi[e] * kj[e];
          p[j] = s * scale;
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j <= i; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j <= i; ++j)
          for (std::size_t e = 0; e < D; ++e)
            y[(b * S + i) * H * D + h * D + e] += p[j] / z * v[(b * S + j) * Hkv * D + g * D + e];
      }
    }
  return y;
}

// Exercise 18: (silu(n W1ᵀ) ⊙ n W3ᵀ) W2ᵀ.
static std::vector<double> swiglu(const std::vector<double>& n, const Array& w1, const Array& w3, const Array& w2) {
  std::vector<double> gate = linear(n, w1);
  const std::vector<double> up = linear(n, w3);
  for (std::size_t i = 0; i < gate.size(); ++i) gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
  return linear(gate, w2);
}

// h = x + Attn(RMSNorm(x)), y = h + FFN(RMSNorm(h)).
Array llama_block_forward(const Array& x, const LlamaBlockWeights& w, std::size_t num_heads, std::size_t num_kv_heads,
                          double eps, double rope_base) {
  const std::size_t B = x.shape()[0], S = x.shape()[1], D = w.wq.shape()[0] / num_heads;
  const std::vector<double> xs(x.begin(), x.end());
  const std::vector<double> n = rms_norm(xs, w.attention_norm, eps);
  std::vector<double> q = linear(n, w.wq), k = linear(n, w.wk);
  const std::vector<double> v = linear(n, w.wv);
  rope_half_split(q, S, num_heads, D, rope_base);
  const std::vector<double> a = linear(grouped_query_attention(q, k, v, B, S, num_heads, num_kv_heads, D), w.wo);
  std::vector<double> h(xs.size());
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = xs[i] + a[i];
  const std::vector<double> f = swiglu(rms_norm(h, w.ffn_norm, eps), w.w1, w.w3, w.w2);
  Array y = Array::from_shape(x.shape());
  for (std::size_t i = 0; i < h.size(); ++i) y.data()[i] = h[i] + f[i];
  return y;
}
