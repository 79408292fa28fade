#pragma once
// nn::SelfAttention: multi-head self-attention, torch.nn.MultiheadAttention(d, heads, batch_first=True)
// called as mha(x, x, x), with the same parameter names and init:
//
//   q, k, v = split(x W_inᵀ + b_in)                  in_proj_weight (3d, d): rows [0,d) q, [d,2d) k, [2d,3d) v
//   each (B, S, d) -> (B, heads, S, d/heads)         heads side by side in the feature axis
//   y = scaled_dot_product_attention(q, k, v, causal) per head, heads merged back to (B, S, d)
//   out = out_proj(y)                                out_proj.weight (d, d), out_proj.bias (d)
//
// Init as MultiheadAttention._reset_parameters: xavier_uniform_ on in_proj_weight (fan_in d,
// fan_out 3d), zeros for in_proj_bias and out_proj.bias, out_proj.weight nn.Linear's default.

#include <memory>

#include "tapegrad/nn/linear_layer.hpp"

namespace tapegrad::nn {

class SelfAttention : public Module {
 public:
  // d must be divisible by heads. causal: each position attends to itself and earlier ones only
  // (PyTorch: attn_mask = the upper triangle at −∞).
  SelfAttention(std::size_t d, std::size_t heads, bool causal = false, Generator& gen = default_generator());
  // x (B, S, d), batch first -> (B, S, d).
  Tensor forward(const Tensor& x) override;

  std::size_t d, heads, head_dim;
  bool causal;
  Tensor in_proj_weight;  // (3d, d)
  Tensor in_proj_bias;    // (3d)
  std::shared_ptr<Linear> out_proj;

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
