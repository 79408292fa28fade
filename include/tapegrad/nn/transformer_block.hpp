#pragma once
// nn::TransformerBlock: self-attention then an FFN, each sublayer wrapped in the same
// ResidualBlock placement, so a placement applies to both sublayers:
//
//   post      x ← LN(x + Attn(x)),        then x ← LN(x + FFN(x))     (the original Transformer)
//   pre       x ← x + Attn(LN(x)),        then x ← x + FFN(LN(x))     (GPT-2; a final LN after the stack)
//   deepnorm, rezero, sandwich, none: likewise (nn/residual_block.hpp).
//
// Children: "attn" (a ResidualBlock around the attention, named "self_attn" inside it) and "ffn" (one
// around nn::FFN). The attention is nn::SelfAttention (packed in_proj_weight) by default, and
// nn::MultiheadAttention (q_proj, k_proj, v_proj, o_proj) when the options ask for grouped-query heads,
// RoPE or separate projections: a LLaMA block is {num_kv_heads, rope, residual.norm = "rms",
// activation = "swiglu"} with Placement::pre.
// DeepNorm's β follows DeepNet (arXiv 2203.00555, Fig. 2): in the attention it scales the
// value and output projections only (rows [2d, 3d) of in_proj_weight and out_proj.weight, or
// v_proj.weight and o_proj.weight),
// not the query and key ones; in the FFN both weights.

#include <memory>
#include <string>

#include <optional>

#include "tapegrad/nn/ffn.hpp"
#include "tapegrad/nn/multihead_attention.hpp"
#include "tapegrad/nn/self_attention.hpp"
#include "tapegrad/nn/residual_block.hpp"

namespace tapegrad::nn {

struct TransformerBlockOptions {
  std::size_t hidden = 0;           // the FFN's width; 0 means 4·d
  std::string activation = "relu";  // the FFN's: "relu", "gelu", "gelu_tanh", "silu" or "swiglu"
  bool causal = false;              // attention sees earlier positions only
  ResidualBlockOptions residual;    // LayerNorm eps, DeepNorm α and β; norm "rms" for RMSNorm
  // Any of the next three makes the attention an nn::MultiheadAttention (separate projections):
  std::size_t num_kv_heads = 0;     // 0 = heads; 1 = MQA; a divisor of heads = GQA
  std::optional<RopeStyle> rope;    // RoPE on q and k
  bool separate_qkv = false;        // MultiheadAttention even without GQA or RoPE
  double rope_base = 10000.0;
  bool attention_bias = false;      // MultiheadAttention's projections with biases (SelfAttention always has them)

  bool uses_multihead_attention() const { return num_kv_heads != 0 || rope.has_value() || separate_qkv; }
};

class TransformerBlock : public Module {
 public:
  TransformerBlock(std::size_t d, std::size_t heads, Placement placement, const TransformerBlockOptions& options = {},
                   Generator& gen = default_generator());
  // x (B, S, d) -> (B, S, d).
  Tensor forward(const Tensor& x) override;
  // A prefill or decode step with this layer's KV cache (needs the MultiheadAttention; inference only).
  Tensor forward(const Tensor& x, KVCache* cache);

  Placement placement;
  std::shared_ptr<SelfAttention> attention;  // the sublayers (attention null when multihead_attention is used) ...
  std::shared_ptr<MultiheadAttention> multihead_attention;
  std::shared_ptr<FFN> feed_forward;
  std::shared_ptr<ResidualBlock> attn, ffn;  // ... each in its residual placement

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
