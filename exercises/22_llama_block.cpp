// Exercise 22: a LLaMA block from your own parts (Pre-RMSNorm, RoPE, GQA, SwiGLU), forward
// 练习 22：用你自己的零件搭一个 LLaMA 块（Pre-RMSNorm、RoPE、GQA、SwiGLU），前向
//
// Check it:   scripts/exercise.sh check llama_block        (--lang zh: 中文报告)
//
// Built from your own parts: write them as helpers above llama_block_forward, in this file (paste your
// RMSNorm of exercise 4, GQA of 15, RoPE of 16 and SwiGLU of 18, or write them again). Forward only.
// 用你自己的零件搭：把它们写成 llama_block_forward 上方的辅助函数，放在本文件里（粘贴你练习 4 的 RMSNorm、15 的 GQA、
// 16 的 RoPE、18 的 SwiGLU，或者重写）。只有前向。
//
// x (B, S, d); weights in nn.Linear's layout (out, in), no biases; H = num_heads, Hkv = num_kv_heads (Hkv divides
// H, n_rep = H / Hkv), D = wq's rows / H; row s of a sequence is at position s (0 .. S − 1).
// x (B, S, d)；权重是 nn.Linear 的布局 (out, in)，没有偏置；H = num_heads，Hkv = num_kv_heads（Hkv 整除 H，
// n_rep = H / Hkv），D = wq 的行数 / H；序列的第 s 行位于位置 s（0 .. S − 1）。
//
//   RMSNorm(x) = x / sqrt(mean(x²) + eps) ⊙ weight                    (per row, over d)
//   n = RMSNorm(x; attention_norm)
//   q = n wqᵀ (H heads of D), k = n wkᵀ, v = n wvᵀ (Hkv heads of D)   (head h: features h·D .. h·D + D − 1)
//   q, k = RoPE(q), RoPE(k), half-split as Hugging Face: in each head the pair (i, i + D/2) rotated by
//          s·θ_i, θ_i = rope_base^(−2i/D)                              (not v)
//   o[h] = softmax(q[h] k[g]ᵀ / √D + causal mask) v[g],  g = h / n_rep (repeat_interleave: query i sees keys j ≤ i)
//   h = x + concat_h(o[h]) woᵀ                                         (residual 1)
//   m = RMSNorm(h; ffn_norm)
//   y = h + (silu(m w1ᵀ) ⊙ m w3ᵀ) w2ᵀ,  silu(g) = g σ(g)             (residual 2)
//
// Worked example / 例子: B = S = 1, d = 2, H = Hkv = 1 (D = 2), hidden 2, every weight matrix the identity, both
// norm weights [1, 1], eps = 0, x = [3, 4]:
//   n = x / sqrt(12.5) = [0.84853, 1.13137]; at position 0 RoPE is the identity and one key gives o = v = n;
//   h = x + n = [3.84853, 5.13137]; m = RMSNorm(h) = [0.84853, 1.13137] (h is a multiple of x);
//   silu(m) ⊙ m = [0.50419, 0.96780]; y = [4.35271, 6.09917].
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::LlamaBlockWeights;

// weights: attention_norm, wq, wk, wv, wo, ffn_norm, w1 (gate), w3 (up), w2 (down)
Array llama_block_forward(const Array& x, const LlamaBlockWeights& w, std::size_t num_heads, std::size_t num_kv_heads,
                          double eps, double rope_base) {
  throw tapegrad::exercise::NotImplemented("llama_block_forward");  // y (B, S, d)
}
