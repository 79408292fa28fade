#include "tapegrad/ops/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../argument_check.hpp"
#include "../autograd/kernel_switch.hpp"
#include "attention_kernel.hpp"
#include "blas.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/batched_matmul.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/narrow.hpp"
#include "tapegrad/ops/shape.hpp"
#include "tapegrad/ops/softmax.hpp"

namespace tapegrad {

namespace {

// The sizes of a batch of attentions: `batch` independent (Sq, Dh) queries against (Sk, Dh) keys and (Sk, Dv) values.
struct AttentionShape {
  std::size_t batch, sq, sk, dh, dv;
};

AttentionShape check_attention(const std::string& op, const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::string got = ": got q " + q.label() + ", k " + k.label() + ", v " + v.label();
  const std::string expected = "; expected q (..., Sq, Dh), k (..., Sk, Dh), v (..., Sk, Dv)";
  if (q.dim() < 2 || k.dim() != q.dim() || v.dim() != q.dim())
    throw ShapeError(op + got + expected + " with the same number (>= 2) of dimensions");
  const Shape qs = q.shape(), ks = k.shape(), vs = v.shape();
  const std::size_t nd = qs.size();
  std::size_t batch = 1;
  for (std::size_t d = 0; d + 2 < nd; ++d) {
    if (ks[d] != qs[d] || vs[d] != qs[d])
      throw ShapeError(op + got + "; the leading (batch, head) axes differ at axis " + std::to_string(d) + expected +
                       " with equal leading axes");
    batch *= qs[d];
  }
  if (ks[nd - 1] != qs[nd - 1])
    throw ShapeError(op + got + "; q and k differ in the last dimension (the head width Dh)" + expected);
  if (vs[nd - 2] != ks[nd - 2])
    throw ShapeError(op + got + "; k and v differ in the number of keys Sk" + expected);
  if (qs[nd - 1] == 0) throw ShapeError(op + got + "; the head width Dh is 0, so 1/√Dh is undefined");
  if (ks[nd - 2] == 0) throw ShapeError(op + got + "; there are no keys (Sk = 0): a softmax over nothing is undefined");
  return {batch, qs[nd - 2], ks[nd - 2], qs[nd - 1], vs[nd - 1]};
}

}  // namespace

namespace kernels {

// PyTorch takes any scale; a NaN or infinite one would turn every output into NaN without a word, so it
// is refused here.
double scores_scale(const std::string& op, const Tensor& q, std::optional<double> scale, std::size_t dh) {
  if (!scale) return 1.0 / std::sqrt(static_cast<double>(dh));
  if (!std::isfinite(*scale))
    throw Error(op + ": invalid scale=" + detail::num(*scale) + " for q " + q.label() +
                " (expected a finite number; leave it out for 1/√Dh)");
  return *scale;
}

PackedHeads check_packed_heads(const std::string& op, const Tensor& qkv, std::size_t heads) {
  const std::string expected = "; expected qkv of shape (B, S, 3d) = [q | k | v] with d a positive multiple of heads";
  if (heads == 0) throw ShapeError(op + ": heads = 0" + expected);
  if (qkv.dim() != 3 || qkv.shape()[2] == 0 || qkv.shape()[2] % (3 * heads) != 0)
    throw ShapeError(op + ": got qkv " + qkv.label() + " with heads = " + std::to_string(heads) + expected);
  if (qkv.shape()[1] == 0) throw ShapeError(op + ": got qkv " + qkv.label() + " with no positions (S = 0)" + expected);
  const std::size_t d = qkv.shape()[2] / 3;
  return {qkv.shape()[0], qkv.shape()[1], d, heads, d / heads};
}

}  // namespace kernels

namespace {

// The bool `causal` overloads keep their PyTorch meaning (top left, query i sees keys j <= i): for
// Sq != Sk as an explicit top-left boolean mask, for Sq == Sk (where both alignments agree) as is_causal.
AttentionMask top_left_causal(const Tensor& q, const Tensor& k, bool causal) {
  if (!causal || q.dim() < 2 || k.dim() < 2 || q.shape()[q.dim() - 2] == k.shape()[k.dim() - 2]) return {};
  return AttentionMask::boolean(causal_mask(q.shape()[q.dim() - 2], k.shape()[k.dim() - 2], CausalAlignment::top_left));
}

}  // namespace

// ---- scores = q kᵀ · scale (+ mask),  P = softmax(scores),  y = P v ----
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
  const AttentionMask mask = top_left_causal(q, k, causal);
  return scaled_dot_product_attention(q, k, v, mask, causal && mask.empty());
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& attn_mask,
                                    bool is_causal, std::optional<double> scale_) {
  const AttentionShape s = check_attention("scaled_dot_product_attention", q, k, v);
  const double scale = kernels::scores_scale("scaled_dot_product_attention", q, scale_, s.dh);
  Shape p_shape = q.shape(), y_shape = q.shape();
  p_shape.back() = s.sk;
  y_shape.back() = s.dv;
  // Without a mask (or causal with Sq == Sk) the plain row softmax; otherwise the mask as one additive
  // bias (0 visible, −∞ masked) of P's shape.
  const bool plain = attn_mask.empty() && (!is_causal || s.sq == s.sk);
  const Array bias = plain ? Array() : kernels::attention_bias("scaled_dot_product_attention", attn_mask, is_causal, p_shape);
  Array probs = Array::from_shape(p_shape);  // P, the one thing the backward needs besides q, k, v
  Array y = Array::from_shape(y_shape);
  const kernels::HeadSizes head{s.sq, s.sk, s.dh, s.dv};
  for (std::size_t b = 0; b < s.batch; ++b)
    kernels::attention_head_forward(q.value().data() + b * s.sq * s.dh, k.value().data() + b * s.sk * s.dh,
                                    v.value().data() + b * s.sk * s.dv, head, scale, is_causal,
                                    plain ? nullptr : bias.data() + b * s.sq * s.sk, probs.data() + b * s.sq * s.sk,
                                    y.data() + b * s.sq * s.dv);
  return record("scaled_dot_product_attention", {q, k, v}, std::move(y),
                [probs = std::move(probs), scale](const Array& dy, const TapeEntry& e) {
                  scaled_dot_product_attention_backward(dy, e.inputs[0], e.inputs[1], e.inputs[2], probs, scale);
                });
}

// Per batch index, with P the saved probabilities and c the scale (default 1/√Dh):
//   dv = Pᵀ dy                                 (y = P v)
//   dP = dy vᵀ
//   dS = P ⊙ (dP − rowsum(dP ⊙ P))             (softmax's backward, row by row; masked keys have P = 0, so dS = 0;
//                                               a fully masked row has P = 0 throughout: no gradient at all)
//   dq = c · dS k,   dk = c · dSᵀ q            (S = c · q kᵀ)
TAPEGRAD_BACKWARD void scaled_dot_product_attention_backward(const Array& dy, const Tensor& q, const Tensor& k,
                                                             const Tensor& v, const Array& probs, double scale) {
  const AttentionShape s = check_attention("scaled_dot_product_attention", q, k, v);
  const bool need_dv = v.requires_grad(), need_scores = q.requires_grad() || k.requires_grad();
  Array dq = need_scores ? Array::from_shape(q.shape()) : Array();
  Array dk = need_scores ? Array::from_shape(k.shape()) : Array();
  Array dv = need_dv ? Array::from_shape(v.shape()) : Array();
  Array ds = Array::from_shape({s.sq, s.sk});  // dP, then dS, of one batch index
  const kernels::HeadSizes head{s.sq, s.sk, s.dh, s.dv};
  for (std::size_t b = 0; b < s.batch; ++b)
    kernels::attention_head_backward(dy.data() + b * s.sq * s.dv, q.value().data() + b * s.sq * s.dh,
                                     k.value().data() + b * s.sk * s.dh, v.value().data() + b * s.sk * s.dv,
                                     probs.data() + b * s.sq * s.sk, head, scale, ds.data(),
                                     need_scores ? dq.data() + b * s.sq * s.dh : nullptr,
                                     need_scores ? dk.data() + b * s.sk * s.dh : nullptr,
                                     need_dv ? dv.data() + b * s.sk * s.dv : nullptr, 0.0);
  if (need_scores) {
    q.accumulate_grad(std::move(dq));
    k.accumulate_grad(std::move(dk));
  }
  if (need_dv) v.accumulate_grad(std::move(dv));
}

// ---- multi-head attention on a packed (B, S, 3d) projection ----
Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal) {
  return kernels::use_fast_kernels ? kernels::fast::multi_head_attention(qkv, heads, causal)
                                   : kernels::reference::multi_head_attention(qkv, heads, causal);
}

namespace kernels::reference {

Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal) {
  const PackedHeads s = check_packed_heads("multi_head_attention", qkv, heads);
  const long B = static_cast<long>(s.batch), S = static_cast<long>(s.seq);
  const long H = static_cast<long>(heads), Dh = static_cast<long>(s.head_dim), d = static_cast<long>(s.d);
  // Part 0, 1 or 2 (q, k, v) of qkv, split into heads: (B, S, d) -> (B, S, H, Dh) -> (B, H, S, Dh).
  const auto heads_of = [&](std::size_t part) {
    return transpose(reshape(narrow(qkv, -1, part * s.d, s.d), {B, S, H, Dh}), 1, 2);
  };
  const Tensor y = scaled_dot_product_attention(heads_of(0), heads_of(1), heads_of(2), causal);  // (B, H, S, Dh)
  return reshape(transpose(y, 1, 2), {B, S, d});  // heads merged: (B, S, d)
}

}  // namespace kernels::reference

namespace composed {

// Step by step as the formula reads; each step its own tape entry.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
  const AttentionMask mask = top_left_causal(q, k, causal);
  return composed::scaled_dot_product_attention(q, k, v, mask, causal && mask.empty());
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& attn_mask,
                                    bool is_causal, std::optional<double> scale) {
  const AttentionShape s = check_attention("composed::scaled_dot_product_attention", q, k, v);
  const double c = kernels::scores_scale("composed::scaled_dot_product_attention", q, scale, s.dh);
  Tensor scores = mul(batched_matmul(q, transpose(k, -2, -1)), c);
  // The mask as 0 where query i may look and −∞ where it may not (PyTorch's masked_fill(-inf)).
  Array bias = kernels::attention_bias("composed::scaled_dot_product_attention", attn_mask, is_causal, scores.shape());
  if (bias.size() == 0) return batched_matmul(softmax(scores, -1), v);
  // A row masked everywhere would be softmax(−∞, ..., −∞) = NaN (PyTorch's answer). tapegrad's answer is
  // zeros: such rows get bias 0 (a finite softmax) and their probabilities are multiplied by 0 afterwards.
  Array keep = xt::ones<double>(scores.shape());
  bool any_empty_row = false;
  for (std::size_t row = 0; row < bias.size() / s.sk; ++row) {
    double* b = bias.data() + row * s.sk;
    if (std::all_of(b, b + s.sk, [](double x) { return x == -std::numeric_limits<double>::infinity(); })) {
      std::fill(b, b + s.sk, 0.0);
      std::fill(keep.data() + row * s.sk, keep.data() + (row + 1) * s.sk, 0.0);
      any_empty_row = true;
    }
  }
  Tensor probs = softmax(add(scores, Tensor(std::move(bias), false, "attn_mask")), -1);
  if (any_empty_row) probs = mul(probs, Tensor(std::move(keep), false, "rows_with_a_key"));
  return batched_matmul(probs, v);
}

}  // namespace composed

}  // namespace tapegrad
