#include "tapegrad/nn/transformer_block.hpp"

#include <xtensor/xview.hpp>

namespace tapegrad::nn {

TransformerBlock::TransformerBlock(std::size_t d, std::size_t heads, Placement placement_,
                                   const TransformerBlockOptions& options, Generator& gen)
    : Module("TransformerBlock"), placement(placement_) {
  attention = std::make_shared<SelfAttention>(d, heads, options.causal, gen);
  feed_forward = std::make_shared<FFN>(d, options.hidden, options.activation, gen);
  // ResidualBlock would scale every "...weight" of its sublayer by β, the query and key projections
  // too; DeepNet scales only the value and output ones, so the attention's β is applied here.
  ResidualBlockOptions attn_options = options.residual;
  attn_options.deepnorm_beta = 1.0;
  attn_options.sublayer_name = "self_attn";  // keys attn.self_attn.in_proj_weight, ffn.ffn.fc1.weight
  ResidualBlockOptions ffn_options = options.residual;
  ffn_options.sublayer_name = "ffn";
  if (placement == Placement::deepnorm) {
    const double beta = options.residual.deepnorm_beta;
    xt::view(attention->in_proj_weight.mutable_value(), xt::range(2 * d, 3 * d), xt::all()) *= beta;  // W_v
    attention->out_proj->weight.mutable_value() *= beta;
  }
  attn = register_module("attn", std::make_shared<ResidualBlock>(attention, placement, d, attn_options));
  ffn = register_module("ffn", std::make_shared<ResidualBlock>(feed_forward, placement, d, ffn_options));
}

Tensor TransformerBlock::forward(const Tensor& x) { return (*ffn)((*attn)(x)); }

std::string TransformerBlock::extra_repr() const { return "placement=" + nn::to_string(placement); }

}  // namespace tapegrad::nn
