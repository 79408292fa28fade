#pragma once
// nn::TransformerBlock: self-attention then an FFN, each sublayer wrapped in the same
// ResidualBlock placement, so a placement applies to both sublayers:
//
//   post      x ← LN(x + Attn(x)),        then x ← LN(x + FFN(x))     (the original Transformer)
//   pre       x ← x + Attn(LN(x)),        then x ← x + FFN(LN(x))     (GPT-2; a final LN after the stack)
//   deepnorm, rezero, sandwich, none: likewise (nn/residual_block.hpp).
//
// Children: "attn" (a ResidualBlock around nn::SelfAttention) and "ffn" (one around nn::FFN).
// DeepNorm's β follows DeepNet (arXiv 2203.00555, Fig. 2): in the attention it scales the
// value and output projections only (rows [2d, 3d) of in_proj_weight and out_proj.weight),
// not the query and key ones; in the FFN both weights.

#include <memory>
#include <string>

#include "tapegrad/nn/self_attention.hpp"
#include "tapegrad/nn/ffn.hpp"
#include "tapegrad/nn/residual_block.hpp"

namespace tapegrad::nn {

struct TransformerBlockOptions {
  std::size_t hidden = 0;           // the FFN's width; 0 means 4·d
  std::string activation = "relu";  // the FFN's: "relu", "gelu", "gelu_tanh", "silu" or "swiglu"
  bool causal = false;              // attention sees earlier positions only
  ResidualBlockOptions residual;    // LayerNorm eps, DeepNorm α and β
};

class TransformerBlock : public Module {
 public:
  TransformerBlock(std::size_t d, std::size_t heads, Placement placement, const TransformerBlockOptions& options = {},
                   Generator& gen = default_generator());
  // x (B, S, d) -> (B, S, d).
  Tensor forward(const Tensor& x) override;

  Placement placement;
  std::shared_ptr<SelfAttention> attention;  // the sublayers ...
  std::shared_ptr<FFN> feed_forward;
  std::shared_ptr<ResidualBlock> attn, ffn;  // ... each in its residual placement

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
