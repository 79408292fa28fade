#include "tapegrad/lab/depth_model.hpp"

#include <cmath>

#include "tapegrad/nn/ffn.hpp"
#include "tapegrad/nn/init.hpp"
#include "tapegrad/nn/residual_block.hpp"
#include "tapegrad/nn/transformer_block.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/shape.hpp"

namespace tapegrad::lab {

namespace {

// The papers' init for one Linear: Xavier-uniform weight (times gain), zero bias.
void xavier_linear(nn::Linear& layer, double gain, Generator& gen) {
  init::xavier_uniform_(layer.weight, gain, gen);
  if (layer.bias.defined()) init::zeros_(layer.bias);
}

}  // namespace

DepthModel::DepthModel(const RunConfig& c, Generator& gen) : Module("DepthModel"), transformer(is_transformer(c)) {
  const std::size_t hidden = c.ffn_mult * c.d;
  nn::ResidualBlockOptions residual;
  residual.norm = lab::to_string(c.norm);
  double beta = 1.0;  // DeepNorm's weight scale inside the blocks
  if (c.placement == nn::Placement::deepnorm) {
    const auto dn = nn::deepnorm_constants(c.depth);
    residual.deepnorm_alpha = dn.alpha;
    residual.deepnorm_beta = beta = dn.beta;
  }
  if (transformer) {
    token_embedding = register_module("token_embedding", std::make_shared<nn::Embedding>(c.classes, c.d, gen));
    position_embedding = register_module("position_embedding", std::make_shared<nn::Embedding>(c.seq_len, c.d, gen));
  } else {
    input = register_module("input", std::make_shared<nn::Linear>(c.d_in, c.d, true, gen));
  }
  blocks = register_module("blocks", std::make_shared<nn::Sequential>());
  for (std::size_t l = 0; l < c.depth; ++l) {
    if (transformer) {
      nn::TransformerBlockOptions options;
      options.hidden = hidden;
      options.activation = tapegrad::to_string(c.activation);
      options.residual = residual;
      blocks->append(std::make_shared<nn::TransformerBlock>(c.d, c.heads, c.placement, options, gen));
    } else {
      residual.sublayer_name = "ffn";  // PyTorch's state_dict keys: blocks.3.ffn.fc1.weight
      blocks->append(std::make_shared<nn::ResidualBlock>(std::make_shared<nn::FFN>(c.d, hidden, tapegrad::to_string(c.activation), gen),
                                                         c.placement, c.d, residual));
    }
  }
  if (has_final_norm(c))
    final_norm = register_module("final_norm", nn::make_norm(residual.norm, c.d, residual.eps));
  head = register_module("head", std::make_shared<nn::Linear>(c.d, c.classes, true, gen));

  if (c.init == Init::xavier) {
    if (input) xavier_linear(*input, 1.0, gen);
    for (std::size_t l = 0; l < c.depth; ++l) {
      if (transformer) {
        auto& block = blocks->at<nn::TransformerBlock>(l);
        xavier_linear(*block.attention->out_proj, beta, gen);  // in_proj_weight: Xavier already, β on W_v
        xavier_linear(*block.feed_forward->fc1, beta, gen);
        xavier_linear(*block.feed_forward->fc2, beta, gen);
      } else {
        auto& ffn = dynamic_cast<nn::FFN&>(*blocks->at<nn::ResidualBlock>(l).sublayer);
        xavier_linear(*ffn.fc1, beta, gen);
        xavier_linear(*ffn.fc2, beta, gen);
      }
    }
    xavier_linear(*head, 1.0, gen);
  }
  if (transformer && c.embed_scale == EmbedScale::unit) {  // the same draws, scaled: E||x_0||^2 = 2d/(2d) = 1
    const double scale = 1.0 / std::sqrt(2.0 * static_cast<double>(c.d));
    for (nn::Embedding* e : {token_embedding.get(), position_embedding.get()}) e->weight.mutable_value() *= scale;
  }
}

Tensor DepthModel::embed(const Tensor& x) {
  // Positions 0..S−1 are the whole position table, so its lookup of arange(S) is the table itself,
  // added to every sequence of the batch by broadcasting: (B, S, d) + (S, d).
  return transformer ? (*token_embedding)(x) + position_embedding->weight : (*input)(x);
}

Tensor DepthModel::forward(const Tensor& x, std::vector<Tensor>* block_outputs) {
  Tensor h = embed(x);
  for (std::size_t l = 0; l < blocks->size(); ++l) {
    h = (*blocks)[l](h);
    if (block_outputs) block_outputs->push_back(h);
  }
  if (final_norm) h = (*final_norm)(h);
  Tensor logits = (*head)(h);
  if (transformer) logits = reshape(logits, {-1, static_cast<long>(head->out_features)});  // (B·S, classes)
  return logits;
}

const Tensor& DepthModel::fc2_weight(std::size_t block) const {
  if (transformer) return blocks->at<nn::TransformerBlock>(block).feed_forward->fc2->weight;
  const auto& rb = blocks->at<nn::ResidualBlock>(block);
  return dynamic_cast<const nn::FFN&>(*rb.sublayer).fc2->weight;
}

std::vector<std::pair<std::string, const Tensor*>> DepthModel::output_projections(std::size_t block) const {
  if (transformer) {
    const auto& b = blocks->at<nn::TransformerBlock>(block);
    return {{"attn.self_attn.out_proj.weight", &b.attention->out_proj->weight},
            {"ffn.ffn.fc2.weight", &b.feed_forward->fc2->weight}};
  }
  return {{"ffn.fc2.weight", &fc2_weight(block)}};
}

}  // namespace tapegrad::lab
