// Exercise 22: a LLaMA decoder block, forward only (each part's backward is its own exercise: 4, 14, 16, 18):
//   h = x + Wo·GQA(RoPE(q), RoPE(k), v, causal)   with q, k, v from RMSNorm(x),   y = h + SwiGLU(RMSNorm(h)).
// The reference is the library's ops composed (rms_norm, linear, split_heads, rotary_embedding half_split,
// composed::grouped_query_attention, swiglu); the catalogue is the same composition with a knob per known
// mistake, so a mistake differs from the reference in its one step only.

#include <cmath>
#include <string>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/grouped_query_attention.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/normalization.hpp"
#include "tapegrad/ops/rotary_embedding.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x, the nine weights in LlamaBlockWeights' order, heads, kv_heads, eps, rope_base}
namespace input {
enum : std::size_t { x, attention_norm, wq, wk, wv, wo, ffn_norm, w1, w3, w2, heads, kv_heads, eps, rope_base };
}
std::size_t size_at(const Case& c, std::size_t i) { return static_cast<std::size_t>(c.in[i]()); }

struct LlamaKnobs {
  bool post_norm = false;                // h = RMSNorm(x + Attn(x)), y = RMSNorm(h + FFN(h))
  bool attention_residual = true;        // h = x + Attn(...)
  bool ffn_residual = true;              // y = h + FFN(...)
  bool rope_on_k = true;
  bool rope_on_v = false;
  RopeStyle rope_style = RopeStyle::half_split;
  bool kv_heads_tiled = false;           // query head h reads kv head h % Hkv (torch's repeat)
  bool eps_outside_sqrt = false;         // x / (sqrt(mean(x²)) + eps)
  bool norm_weight = true;               // RMSNorm's weight applied
  bool gate_up_swapped = false;          // silu(x W3ᵀ) ⊙ x W1ᵀ
  bool causal = true;
  bool scale_by_d = false;               // scores / D
};

Tensor rms(const Tensor& x, const Array& weight, double eps, const LlamaKnobs& k) {
  const std::size_t d = x.value().shape().back();
  if (!k.eps_outside_sqrt) return rms_norm(x, {d}, k.norm_weight ? Tensor(weight) : Tensor(), eps);
  const Array& v = x.value();
  Array y = v;
  for (std::size_t r = 0; r < v.size() / d; ++r) {
    double ms = 0;
    for (std::size_t j = 0; j < d; ++j) ms += v.data()[r * d + j] * v.data()[r * d + j] / double(d);
    for (std::size_t j = 0; j < d; ++j)
      y.data()[r * d + j] = v.data()[r * d + j] / (std::sqrt(ms) + eps) * (k.norm_weight ? weight(j) : 1.0);
  }
  return Tensor(y);
}

// (B, Hkv, S, D) -> (B, H, S, D) with head h a copy of kv head h % Hkv (tiling, not repeat_interleave).
Tensor tiled(const Tensor& kv, std::size_t heads) {
  const Array& a = kv.value();
  const std::size_t B = a.shape()[0], Hkv = a.shape()[1], inner = a.shape()[2] * a.shape()[3];
  Array out = Array::from_shape({B, heads, a.shape()[2], a.shape()[3]});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < inner; ++i)
        out.data()[(b * heads + h) * inner + i] = a.data()[(b * Hkv + h % Hkv) * inner + i];
  return Tensor(out);
}

Tensor attention(const Case& c, const Tensor& n, const LlamaKnobs& k) {
  const std::size_t H = size_at(c, input::heads), Hkv = size_at(c, input::kv_heads), S = c.in[input::x].shape()[1];
  const std::vector<std::int64_t> positions = position_range(0, S);
  const double base = c.in[input::rope_base]();
  auto rope = [&](const Tensor& t) { return rotary_embedding(t, positions, base, k.rope_style); };
  Tensor q = rope(split_heads(linear(n, Tensor(c.in[input::wq])), H));
  Tensor kk = split_heads(linear(n, Tensor(c.in[input::wk])), Hkv);
  Tensor v = split_heads(linear(n, Tensor(c.in[input::wv])), Hkv);
  if (k.rope_on_k) kk = rope(kk);
  if (k.rope_on_v) v = rope(v);
  if (k.kv_heads_tiled) kk = tiled(kk, H), v = tiled(v, H);
  GroupedQueryAttentionOptions o;
  o.causal = k.causal;
  if (k.scale_by_d) o.scale = 1.0 / double(q.value().shape()[3]);
  return linear(merge_heads(composed::grouped_query_attention(q, kk, v, o)), Tensor(c.in[input::wo]));
}

Tensor ffn(const Case& c, const Tensor& n, const LlamaKnobs& k) {
  const Tensor w1(c.in[input::w1]), w3(c.in[input::w3]);
  const Tensor& gate = k.gate_up_swapped ? w3 : w1;
  const Tensor& up = k.gate_up_swapped ? w1 : w3;
  return linear(swiglu(linear(n, gate), linear(n, up)), Tensor(c.in[input::w2]));
}

Outputs llama_block(const Case& c, const LlamaKnobs& k) {
  const double eps = c.in[input::eps]();
  const Tensor x(c.in[input::x]);
  const Array &norm1 = c.in[input::attention_norm], &norm2 = c.in[input::ffn_norm];
  if (k.post_norm) {
    const Tensor h = rms(x + attention(c, x, k), norm1, eps, k);
    return {rms(h + ffn(c, h, k), norm2, eps, k).value()};
  }
  const Tensor a = attention(c, rms(x, norm1, eps, k), k);
  const Tensor h = k.attention_residual ? x + a : a;
  const Tensor f = ffn(c, rms(h, norm2, eps, k), k);
  return {(k.ffn_residual ? h + f : f).value()};
}

const Text kPostNorm{
    "The norms are after the residual additions (Post-Norm, the original Transformer's): h = RMSNorm(x + Attn(x)). "
    "LLaMA is Pre-Norm: each sublayer reads a normalised copy and the residual carries the raw sum, h = x + "
    "Attn(RMSNorm(x)), y = h + FFN(RMSNorm(h)); nothing normalises y.",
    "归一化放在了残差相加之后（Post-Norm，原始 Transformer 的做法）：h = RMSNorm(x + Attn(x))。LLaMA 是 Pre-Norm："
    "每个子层读归一化后的副本，残差传递未归一化的和，h = x + Attn(RMSNorm(x))，y = h + FFN(RMSNorm(h))；y 不再归一化。"};
const Text kResidual{
    "A residual connection is missing: the output lacks x around the attention (h = x + Attn(...)) or h around "
    "the FFN (y = h + FFN(...)). Both sublayers add their input back: h = x + Attn(RMSNorm(x)), y = h + "
    "FFN(RMSNorm(h)), with the raw x and h, not their normalised copies.",
    "少了一条残差连接：输出在注意力处少了 x（h = x + Attn(...)），或在 FFN 处少了 h（y = h + FFN(...)）。两个子层都要把"
    "输入加回来：h = x + Attn(RMSNorm(x))，y = h + FFN(RMSNorm(h))，加的是未归一化的 x 和 h。"};
const Text kRopeNotOnK{
    "RoPE rotated q but not k. The scores depend on the relative position only when both are rotated by their "
    "own positions: q_i·k_j after RoPE(q_i, i) and RoPE(k_j, j) depends on i − j. Rotate both: q = RoPE(n wqᵀ), k = "
    "RoPE(n wkᵀ) (each kv head's k, before the heads are shared), never v.",
    "RoPE 只旋转了 q，没有旋转 k。只有 q 和 k 都按各自的位置旋转，分数才只依赖相对位置：RoPE(q_i, i)·RoPE(k_j, j) 只依赖 "
    "i − j。两者都旋转：q = RoPE(n wqᵀ)，k = RoPE(n wkᵀ)（每个 kv 头的 k，在共享之前），不旋转 v。"};
const Text kRopeOnV{
    "RoPE rotated v too. RoPE encodes positions in the scores q·k only; v carries the content that is averaged, "
    "unrotated. Rotate q and k, not v: v = n wvᵀ as it is.",
    "RoPE 也旋转了 v。RoPE 只在分数 q·k 里编码位置；v 携带被加权平均的内容，不旋转。只旋转 q 和 k，不旋转 v：v = n wvᵀ 原样使用。"};
const Text kRopeInterleaved{
    "RoPE paired features (2i, 2i + 1) (interleaved, Meta's original code). This block's weights are in Hugging "
    "Face's layout, which pairs (i, i + D/2) within each head (half-split: x·cos + rotate_half(x)·sin), with "
    "θ_i = base^(−2i/D).",
    "RoPE 把特征配成了 (2i, 2i + 1)（interleaved，Meta 原始代码的做法）。本题的权重是 Hugging Face 的布局，在每个头内配对 "
    "(i, i + D/2)（half-split：x·cos + rotate_half(x)·sin），θ_i = base^(−2i/D)。"};
const Text kTiled{
    "Query head h read kv head h % Hkv: that is torch's repeat (tiling: 0, 1, 0, 1). GQA groups consecutive query "
    "heads: query head h reads kv head h / n_rep, n_rep = H / Hkv, as LLaMA's repeat_kv (repeat_interleave: 0, 0, "
    "1, 1).",
    "query 头 h 读了 kv 头 h % Hkv：这是 torch 的 repeat（平铺：0、1、0、1）。GQA 把相邻的 query 头分成一组：query 头 h 读 "
    "kv 头 h / n_rep，n_rep = H / Hkv，即 LLaMA 的 repeat_kv（repeat_interleave：0、0、1、1）。"};
const Text kEpsOutside{
    "RMSNorm's ε was added outside the square root: x / (sqrt(mean(x²)) + ε). LLaMA's (and torch's) RMSNorm puts it "
    "inside: x / sqrt(mean(x²) + ε) · weight. The difference shows when mean(x²) is small next to ε.",
    "RMSNorm 的 ε 加在了平方根外面：x / (sqrt(mean(x²)) + ε)。LLaMA（和 torch）的 RMSNorm 把它放在里面："
    "x / sqrt(mean(x²) + ε) · weight。当 mean(x²) 相对 ε 很小时差别就显现出来。"};
const Text kNoWeight{
    "RMSNorm's weight was not applied. Each norm has its own weight (d): RMSNorm(x) = x / sqrt(mean(x²) + ε) ⊙ "
    "weight, attention_norm before the attention, ffn_norm before the FFN.",
    "RMSNorm 没有乘权重。每个归一化都有自己的权重 (d)：RMSNorm(x) = x / sqrt(mean(x²) + ε) ⊙ weight，注意力前用 "
    "attention_norm，FFN 前用 ffn_norm。"};
const Text kSwapped{
    "The FFN's gate and up projection are swapped: silu went on n W3ᵀ. W1 is the gate (gate_proj): FFN(n) = "
    "(silu(n W1ᵀ) ⊙ n W3ᵀ) W2ᵀ.",
    "FFN 的门控和上投影弄反了：silu 作用在了 n W3ᵀ 上。W1 才是门控（gate_proj）：FFN(n) = (silu(n W1ᵀ) ⊙ n W3ᵀ) W2ᵀ。"};
const Text kNoCausal{
    "The attention is not causal: a query saw the keys after it. In a decoder query i sees keys j ≤ i only: "
    "scores with j > i are −∞ before the softmax, o_i = Σ_{j ≤ i} softmax_j(q_i·k_j / √D) v_j.",
    "注意力没有因果掩码：query 看到了它后面的 key。解码器中 query i 只能看 j ≤ i 的 key：j > i 的分数在 softmax 之前设为 "
    "−∞，o_i = Σ_{j ≤ i} softmax_j(q_i·k_j / √D) v_j。"};
const Text kScaleByD{
    "The scores were divided by D, not √D. The scores are q kᵀ / √D = q kᵀ · D^(−1/2) with D the head dimension "
    "(wq's rows / H), not d.",
    "分数除以了 D，而不是 √D。分数是 q kᵀ / √D = q kᵀ · D^(−1/2)，D 是每个头的维度（wq 的行数 / H），不是 d。"};

}  // namespace

Spec llama_block_spec() {
  Spec s;
  s.exercise = "llama_block";
  Draw d(22);
  struct Shp {
    std::size_t B, S, H, Hkv, D, hidden;
    double eps, base, spread;
    Text what;
  };
  const std::vector<Shp> shapes = {
      {1, 1, 1, 1, 2, 2, 0.0, 10000, 1, {"worked example (weights given in the statement)", "例子（权重见题目）"}},
      {1, 4, 4, 2, 4, 24, 1e-5, 10000, 1, {"GQA n_rep 2", "GQA n_rep 2"}},
      {2, 5, 6, 3, 4, 20, 1e-5, 100, 1, {"GQA n_rep 2, base 100", "GQA n_rep 2，base 100"}},
      {1, 6, 6, 2, 4, 16, 1e-5, 10000, 1, {"GQA n_rep 3", "GQA n_rep 3"}},
      {1, 3, 4, 1, 4, 12, 1e-5, 10000, 1, {"MQA (one kv head)", "MQA（一个 kv 头）"}},
      {1, 4, 2, 2, 6, 12, 0.3, 100, 0.3, {"MHA, small x, eps 0.3", "MHA，x 很小，eps 0.3"}},
  };
  for (const Shp& sh : shapes) {
    const std::size_t dm = sh.H * sh.D;
    const std::string dims = "B " + std::to_string(sh.B) + ", S " + std::to_string(sh.S) + ", H " +
                             std::to_string(sh.H) + ", Hkv " + std::to_string(sh.Hkv) + ", D " + std::to_string(sh.D);
    const std::string dims_zh = "B " + std::to_string(sh.B) + "，S " + std::to_string(sh.S) + "，H " +
                                std::to_string(sh.H) + "，Hkv " + std::to_string(sh.Hkv) + "，D " + std::to_string(sh.D);
    Case c;
    c.name = {dims + ", " + sh.what.en, dims_zh + "，" + sh.what.zh};
    if (sh.S == 1) {  // the statement's worked example: every weight the identity, x = [3, 4]
      const Array eye = xt::eye<double>(2), ones = xt::ones<double>({2});
      c.in = {Array({{{3.0, 4.0}}}), ones, eye, eye, eye, eye, ones, eye, eye, eye};
    } else {
      const double w = 1.4 / std::sqrt(double(dm));  // scores of order 1: the scale and the mask matter
      c.in = {d.normal({sh.B, sh.S, dm}, 0, sh.spread), d.normal({dm}, 1, 0.3),
              d.normal({sh.H * sh.D, dm}, 0, w),       d.normal({sh.Hkv * sh.D, dm}, 0, w),
              d.normal({sh.Hkv * sh.D, dm}, 0, w),     d.normal({dm, sh.H * sh.D}, 0, w),
              d.normal({dm}, 1, 0.3),                   d.normal({sh.hidden, dm}, 0, w),
              d.normal({sh.hidden, dm}, 0, w),
              d.normal({dm, sh.hidden}, 0, 1.4 / std::sqrt(double(sh.hidden)))};
    }
    for (double v : {double(sh.H), double(sh.Hkv), sh.eps, sh.base}) c.in.push_back(scalar(v));
    c.fd = false;
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) { return llama_block(c, {}); };
  auto add = [&](const std::string& id, LlamaKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return llama_block(c, k); }, hint, false});
  };
  LlamaKnobs k;
  k.post_norm = true;
  add("post_norm", k, kPostNorm);
  k = {}, k.attention_residual = false;
  add("residual_missing", k, kResidual);
  k = {}, k.ffn_residual = false;
  add("residual_missing", k, kResidual);
  k = {}, k.rope_on_k = false;
  add("rope_not_on_k", k, kRopeNotOnK);
  k = {}, k.rope_on_v = true;
  add("rope_on_v", k, kRopeOnV);
  k = {}, k.rope_style = RopeStyle::interleaved;
  add("rope_interleaved", k, kRopeInterleaved);
  k = {}, k.kv_heads_tiled = true;
  add("kv_heads_tiled", k, kTiled);
  k = {}, k.eps_outside_sqrt = true;
  add("rms_eps_outside_sqrt", k, kEpsOutside);
  k = {}, k.norm_weight = false;
  add("rms_without_weight", k, kNoWeight);
  k = {}, k.gate_up_swapped = true;
  add("gate_up_swapped", k, kSwapped);
  k = {}, k.causal = false;
  add("no_causal_mask", k, kNoCausal);
  k = {}, k.scale_by_d = true;
  add("scale_by_d", k, kScaleByD);
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_llama_block(LlamaBlockForward forward, const Options& options) {
  return graded(llama_block_spec(),
                {{"llama_block_forward", {"y"},
                  [=](const Case& c) {
                    const LlamaBlockWeights w{c.in[input::attention_norm], c.in[input::wq], c.in[input::wk],
                                              c.in[input::wv],             c.in[input::wo], c.in[input::ffn_norm],
                                              c.in[input::w1],             c.in[input::w3], c.in[input::w2]};
                    return Outputs{forward(c.in[input::x], w, size_at(c, input::heads), size_at(c, input::kv_heads),
                                           c.in[input::eps](), c.in[input::rope_base]())};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
