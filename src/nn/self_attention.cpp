#include "tapegrad/nn/self_attention.hpp"

#include "tapegrad/nn/init.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/linear.hpp"

namespace tapegrad::nn {

SelfAttention::SelfAttention(std::size_t d_, std::size_t heads_, bool causal_, Generator& gen)
    : Module("SelfAttention"), d(d_), heads(heads_), head_dim(heads_ ? d_ / heads_ : 0), causal(causal_) {
  if (d == 0 || heads == 0 || d % heads != 0)
    throw ShapeError("SelfAttention: embed dim d = " + std::to_string(d) + " must be a positive multiple of heads = " +
                     std::to_string(heads) + " (each head gets d / heads features)");
  in_proj_weight = register_parameter("in_proj_weight", zeros({3 * d, d}));
  in_proj_bias = register_parameter("in_proj_bias", zeros({3 * d}));
  // PyTorch's order of draws: out_proj is built (nn.Linear's init), then _reset_parameters.
  out_proj = register_module("out_proj", std::make_shared<Linear>(d, d, true, gen));
  init::xavier_uniform_(in_proj_weight, 1.0, gen);
  init::zeros_(out_proj->bias);
}

Tensor SelfAttention::forward(const Tensor& x) {
  if (x.dim() != 3 || x.shape()[2] != d)
    throw ShapeError("SelfAttention: expected x of shape (B, S, d) with d = " + std::to_string(d) +
                     " (batch first), got " + x.label());
  const Tensor qkv = linear(x, in_proj_weight, in_proj_bias);  // (B, S, 3d): one product for q, k and v
  // Each of q, k, v split into heads, every head's attention, the heads merged back: (B, S, d).
  // The reference (ops/attention.cpp) spells the layout changes out with narrow, reshape and
  // transpose; the fast kernel (the default build) reads the heads in place.
  return (*out_proj)(multi_head_attention(qkv, heads, causal));
}

std::string SelfAttention::extra_repr() const {
  return "d=" + std::to_string(d) + ", heads=" + std::to_string(heads) + ", causal=" + (causal ? "true" : "false");
}

}  // namespace tapegrad::nn
