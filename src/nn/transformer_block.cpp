#include "tapegrad/nn/transformer_block.hpp"

#include <xtensor/xview.hpp>

namespace tapegrad::nn {

TransformerBlock::TransformerBlock(std::size_t d, std::size_t heads, Placement placement_,
                                   const TransformerBlockOptions& options, Generator& gen)
    : Module("TransformerBlock"), placement(placement_) {
  std::shared_ptr<Module> attention_module;
  if (options.uses_multihead_attention()) {
    MultiheadAttentionOptions mha;
    mha.num_kv_heads = options.num_kv_heads;
    mha.bias = options.attention_bias;
    mha.causal = options.causal;
    mha.rope = options.rope;
    mha.rope_base = options.rope_base;
    multihead_attention = std::make_shared<MultiheadAttention>(d, heads, mha, gen);
    attention_module = multihead_attention;
  } else {
    attention = std::make_shared<SelfAttention>(d, heads, options.causal, gen);
    attention_module = attention;
  }
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
    if (attention) {
      xt::view(attention->in_proj_weight.mutable_value(), xt::range(2 * d, 3 * d), xt::all()) *= beta;  // W_v
      attention->out_proj->weight.mutable_value() *= beta;
    } else {
      multihead_attention->v_proj->weight.mutable_value() *= beta;
      multihead_attention->o_proj->weight.mutable_value() *= beta;
    }
  }
  attn = register_module("attn", std::make_shared<ResidualBlock>(attention_module, placement, d, attn_options));
  ffn = register_module("ffn", std::make_shared<ResidualBlock>(feed_forward, placement, d, ffn_options));
}

Tensor TransformerBlock::forward(const Tensor& x) { return (*ffn)((*attn)(x)); }

Tensor TransformerBlock::forward(const Tensor& x, KVCache* cache) {
  if (!multihead_attention)
    throw Error("TransformerBlock: forward with a KVCache needs the MultiheadAttention (set num_kv_heads, rope or "
                "separate_qkv in TransformerBlockOptions); this block has the packed SelfAttention");
  MultiheadAttention& mha = *multihead_attention;
  const Tensor h = attn->forward(x, [&mha, cache](const Tensor& t) { return mha.forward(t, cache); });
  return (*ffn)(h);
}

std::string TransformerBlock::extra_repr() const { return "placement=" + nn::to_string(placement); }

}  // namespace tapegrad::nn
