#pragma once
// Grouped-query attention as one op, with its backward written out: what nn::MultiheadAttention
// computes between its projections (after RoPE) and o_proj, when kernels::use_fast_kernels is on.
//
//   q (B, Hq, Sq, D), k (B, Hkv, Sk, D), v (B, Hkv, Sk, Dv), Hq a multiple of Hkv, n_rep = Hq / Hkv:
//   query head h reads kv head g = h / n_rep (consecutive query heads share one kv head), and
//   y[:, h] = softmax(q[:, h] k[:, g]ᵀ · scale (+ mask)) v[:, g]          y (B, Hq, Sq, Dv)
//
// which is scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask, causal, scale)
// (composed::grouped_query_attention below, the reference) without the repeated copies of k and v:
// one tape entry where the reference has three (repeat_kv twice and the attention), and the backward
// sums dk and dv over each group's query heads as repeat_kv's backward does. n_rep = 1 is multi-head
// attention (MHA), Hkv = 1 multi-query attention (MQA).
//
// causal is bottom-right aligned as scaled_dot_product_attention's is_causal (the Sq queries are the
// last Sq of the Sk positions); attn_mask broadcasts over (B, Hq, Sq, Sk); scale defaults to 1/√D.
// A query with every key masked gets output 0 and passes no gradient (ops/attention.hpp).
// Same products in the same order as the reference, so the same values (tests/ops/test_grouped_query_attention.cpp).

#include <optional>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/attention_mask.hpp"

namespace tapegrad {

struct GroupedQueryAttentionOptions {
  bool causal = false;           // query i sees keys j <= i + Sk − Sq (bottom right)
  AttentionMask attn_mask;       // none, boolean (1 = may attend) or additive, broadcast over (B, Hq, Sq, Sk)
  std::optional<double> scale;   // of the scores q kᵀ; nullopt = 1/√D
};

Tensor grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const GroupedQueryAttentionOptions& options = {});

// The backward, from dy (B, Hq, Sq, Dv), the probabilities P (B, Hq, Sq, Sk) the forward saved and the scale.
void grouped_query_attention_backward(const Array& dy, const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Array& probs, double scale);

namespace composed {
// The reference: each kv head copied to its group (repeat_kv, LLaMA's), then scaled_dot_product_attention.
Tensor grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const GroupedQueryAttentionOptions& options = {});
}  // namespace composed

// The head layout change around attention, each as one op and one copy (the reference composes it from
// reshape and transpose: two ops, two copies each way):
//   split_heads: x (B, S, H·D) -> (B, H, S, D),   y[b, h, s, :] = x[b, s, h·D .. h·D + D − 1]
//   merge_heads: x (B, H, S, D) -> (B, S, H·D),   the inverse
// Each one's backward is the other's copy.
Tensor split_heads(const Tensor& x, std::size_t heads);
Tensor merge_heads(const Tensor& x);
void split_heads_backward(const Array& dy, const Tensor& x, std::size_t heads);
void merge_heads_backward(const Array& dy, const Tensor& x);

}  // namespace tapegrad
