#pragma once
// nn::MultiheadAttention: LLaMA-style attention with separate projections named as Hugging Face's
// LlamaAttention, grouped-query heads, optional RoPE and a KV cache for decoding:
//
//   q = q_proj(x)  (B, S, d)        -> (B, H,   S, Dh)      Dh = d / H
//   k = k_proj(x), v = v_proj(x)    -> (B, Hkv, S, Dh)      k_proj, v_proj: d -> Hkv·Dh
//   q, k ← rotary_embedding(·, positions)  (when options.rope; never v)
//   y = scaled_dot_product_attention(q, repeat_kv(k), repeat_kv(v), attn_mask, causal)   (scale 1/√Dh)
//   out = o_proj(y merged back to (B, S, d))
//
// num_kv_heads: 0 or H = multi-head attention (MHA), 1 = multi-query (MQA), a divisor of H =
// grouped-query (GQA): query head h reads kv head h / (H / Hkv) (ops/repeat_kv.hpp).
// Unlike nn::SelfAttention (one packed in_proj_weight, torch.nn.MultiheadAttention's names), every
// projection is its own nn::Linear; init is nn.Linear's default for each.
//
// With kernels::use_fast_kernels on (the default build) and no cache, the steps between the projections are
// fused ops with the same values: split_heads / merge_heads (one copy each, not reshape + transpose) and
// grouped_query_attention (ops/grouped_query_attention.hpp: each kv head read in place, no repeat_kv copies),
// 7 tape entries instead of 13. The debug preset (and `set var tapegrad::kernels::use_fast_kernels = false` in
// gdb) shows every step.
//
// With a KVCache (nn/kv_cache.hpp): the positions of x start at cache->length() (the RoPE offset), the
// new k and v (kv heads, after RoPE) are appended, and the queries attend over every cached key with
// is_causal bottom-right aligned (the new tokens are the last ones). For inference only: it throws
// while gradients are recorded.

#include <optional>

#include "tapegrad/nn/kv_cache.hpp"
#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/ops/attention_mask.hpp"
#include "tapegrad/ops/rotary_embedding.hpp"

namespace tapegrad::nn {

struct MultiheadAttentionOptions {
  std::size_t num_kv_heads = 0;    // 0 = num_heads (MHA); 1 = MQA; a divisor of num_heads = GQA
  bool bias = false;               // biases on the four projections (LLaMA: none; Qwen2: q, k, v only)
  bool causal = false;             // each position attends to itself and earlier ones only
  std::optional<RopeStyle> rope;   // RoPE on q and k after the head split; nullopt = none
  double rope_base = 10000.0;
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(std::size_t d, std::size_t num_heads, const MultiheadAttentionOptions& options = {},
                     Generator& gen = default_generator());
  // x (B, S, d) -> (B, S, d); positions 0 .. S − 1.
  Tensor forward(const Tensor& x) override;
  // attn_mask: as scaled_dot_product_attention's, broadcast over (B, H, S, S) (combined with causal).
  Tensor forward(const Tensor& x, const AttentionMask& attn_mask);
  // A decode or prefill step: positions cache->length() .. + S − 1, keys over cache + x. Inference only.
  Tensor forward(const Tensor& x, KVCache* cache, const AttentionMask& attn_mask = {});

  std::size_t d, num_heads, num_kv_heads, head_dim;
  MultiheadAttentionOptions options;
  std::shared_ptr<Linear> q_proj, k_proj, v_proj, o_proj;

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
