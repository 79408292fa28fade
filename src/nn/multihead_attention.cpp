#include "tapegrad/nn/multihead_attention.hpp"

#include <cmath>

#include "../argument_check.hpp"
#include "../autograd/kernel_switch.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/grouped_query_attention.hpp"
#include "tapegrad/ops/repeat_kv.hpp"
#include "tapegrad/ops/shape.hpp"

namespace tapegrad::nn {

namespace {

// (B, S, heads·Dh) -> (B, heads, S, Dh): each head's features become its own (S, Dh) block. The reference
// reshapes to (B, S, heads, Dh) and swaps the axes S and heads (two ops, two copies); fused, the split_heads op
// makes the same array in one copy.
Tensor split_into_heads(const Tensor& t, std::size_t heads, bool fused) {
  if (fused) return split_heads(t, heads);
  const long B = static_cast<long>(t.shape()[0]), S = static_cast<long>(t.shape()[1]);
  const long H = static_cast<long>(heads), Dh = static_cast<long>(t.shape()[2] / heads);
  return transpose(reshape(t, {B, S, H, Dh}), 1, 2);
}

// (B, heads, S, Dh) -> (B, S, heads·Dh): the heads side by side in the features again.
Tensor merge_from_heads(const Tensor& t, bool fused) {
  if (fused) return merge_heads(t);
  const Shape& s = t.shape();
  return reshape(transpose(t, 1, 2), {static_cast<long>(s[0]), static_cast<long>(s[2]), static_cast<long>(s[1] * s[3])});
}

}  // namespace

MultiheadAttention::MultiheadAttention(std::size_t d_, std::size_t num_heads_, const MultiheadAttentionOptions& options_,
                                       Generator& gen)
    : Module("MultiheadAttention"),
      d(d_),
      num_heads(num_heads_),
      num_kv_heads(options_.num_kv_heads == 0 ? num_heads_ : options_.num_kv_heads),
      head_dim(num_heads_ ? d_ / num_heads_ : 0),
      options(options_) {
  if (d == 0 || num_heads == 0 || d % num_heads != 0)
    throw ShapeError("MultiheadAttention: embed dim d = " + std::to_string(d) +
                     " must be a positive multiple of num_heads = " + std::to_string(num_heads) +
                     " (each head gets d / num_heads features)");
  if (num_heads % num_kv_heads != 0)
    throw ShapeError("MultiheadAttention: num_heads = " + std::to_string(num_heads) +
                     " must be a multiple of num_kv_heads = " + std::to_string(num_kv_heads) +
                     " (each kv head serves num_heads / num_kv_heads query heads)");
  if (options.rope && head_dim % 2 != 0)
    throw ShapeError("MultiheadAttention: RoPE rotates features in pairs; expected an even head_dim = d / num_heads, got " +
                     std::to_string(d) + " / " + std::to_string(num_heads) + " = " + std::to_string(head_dim));
  detail::require(options.rope_base > 0.0 && std::isfinite(options.rope_base), "MultiheadAttention", "rope_base",
                  options.rope_base, "a finite number > 0, e.g. 10000");  // NaN fails too
  const std::size_t kv_features = num_kv_heads * head_dim;
  q_proj = register_module("q_proj", std::make_shared<Linear>(d, d, options.bias, gen));
  k_proj = register_module("k_proj", std::make_shared<Linear>(d, kv_features, options.bias, gen));
  v_proj = register_module("v_proj", std::make_shared<Linear>(d, kv_features, options.bias, gen));
  o_proj = register_module("o_proj", std::make_shared<Linear>(d, d, options.bias, gen));
}

Tensor MultiheadAttention::forward(const Tensor& x) { return forward(x, nullptr, AttentionMask{}); }

Tensor MultiheadAttention::forward(const Tensor& x, const AttentionMask& attn_mask) {
  return forward(x, nullptr, attn_mask);
}

Tensor MultiheadAttention::forward(const Tensor& x, KVCache* cache, const AttentionMask& attn_mask) {
  if (x.dim() != 3 || x.shape()[2] != d)
    throw ShapeError("MultiheadAttention: expected x of shape (B, S, d) with d = " + std::to_string(d) +
                     " (batch first), got " + x.label());
  if (cache && is_grad_enabled())
    throw Error("MultiheadAttention: forward with a KVCache is for inference (the cached keys and values are "
                "constants, no gradient would reach k_proj and v_proj through them); run it under no_grad");
  const std::size_t offset = cache ? cache->length() : 0;  // the absolute position of x's first row
  const std::size_t S = x.shape()[1];
  // The switch kernels::use_fast_kernels (autograd/kernel_switch.hpp) picks fused ops for the layout changes and
  // the attention: the same values with 7 tape entries between the projections instead of 13 (no cache: the
  // cached decode stays on the reference ops).
  const bool fused = kernels::use_fast_kernels && !cache;

  Tensor q = split_into_heads((*q_proj)(x), num_heads, fused);     // (B, H, S, Dh)
  Tensor k = split_into_heads((*k_proj)(x), num_kv_heads, fused);  // (B, Hkv, S, Dh)
  Tensor v = split_into_heads((*v_proj)(x), num_kv_heads, fused);
  if (options.rope) {
    // Position enters through q and k only: q_m · k_n then depends on m − n. v carries content.
    const auto positions = position_range(static_cast<std::int64_t>(offset), S);
    q = rotary_embedding(q, positions, options.rope_base, *options.rope);
    k = rotary_embedding(k, positions, options.rope_base, *options.rope);
  }
  if (cache) {
    // The cache keeps the kv heads un-repeated; keys over every position seen, the new ones last.
    cache->append(k.value(), v.value());
    k = Tensor(cache->keys());
    v = Tensor(cache->values());
  }
  const std::size_t n_rep = num_heads / num_kv_heads;  // query heads per kv head
  // is_causal is bottom-right aligned: the S queries are the last S of the cache's positions.
  // Fused: grouped_query_attention reads kv head h / n_rep in place of repeat_kv's copies (one tape entry for three).
  const Tensor y = fused ? grouped_query_attention(q, k, v, {options.causal, attn_mask, std::nullopt})
                         : scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), attn_mask,
                                                        options.causal);
  return (*o_proj)(merge_from_heads(y, fused));
}

std::string MultiheadAttention::extra_repr() const {
  std::string out = "d=" + std::to_string(d) + ", num_heads=" + std::to_string(num_heads) +
                    ", num_kv_heads=" + std::to_string(num_kv_heads) + ", bias=" + (options.bias ? "true" : "false") +
                    ", causal=" + (options.causal ? "true" : "false");
  if (options.rope) out += std::string(", rope=") + (*options.rope == RopeStyle::interleaved ? "interleaved" : "half_split");
  return out;
}

}  // namespace tapegrad::nn
