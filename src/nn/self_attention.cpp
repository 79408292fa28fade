#include "tapegrad/nn/self_attention.hpp"

#include "tapegrad/nn/init.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/narrow.hpp"
#include "tapegrad/ops/shape.hpp"

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
  const long B = static_cast<long>(x.shape()[0]), S = static_cast<long>(x.shape()[1]);
  const long H = static_cast<long>(heads), Dh = static_cast<long>(head_dim);
  const Tensor qkv = linear(x, in_proj_weight, in_proj_bias);  // (B, S, 3d): one product for q, k and v
  // Part 0, 1 or 2 (q, k, v) of qkv, split into heads: (B, S, d) -> (B, S, H, Dh) -> (B, H, S, Dh).
  const auto heads_of = [&](std::size_t part) {
    return transpose(reshape(narrow(qkv, -1, part * d, d), {B, S, H, Dh}), 1, 2);
  };
  const Tensor y = scaled_dot_product_attention(heads_of(0), heads_of(1), heads_of(2), causal);  // (B, H, S, Dh)
  return (*out_proj)(reshape(transpose(y, 1, 2), {B, S, static_cast<long>(d)}));  // heads merged: (B, S, d)
}

std::string SelfAttention::extra_repr() const {
  return "d=" + std::to_string(d) + ", heads=" + std::to_string(heads) + ", causal=" + (causal ? "true" : "false");
}

}  // namespace tapegrad::nn
