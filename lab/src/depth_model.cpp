#include "tapegrad/lab/depth_model.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

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

// An FFN's Linears in registration order: fc1, fc2, or SwiGLU's gate_proj, up_proj, down_proj.
std::vector<nn::Linear*> ffn_linears(const nn::FFN& ffn) {
  if (ffn.down_proj) return {ffn.gate_proj.get(), ffn.up_proj.get(), ffn.down_proj.get()};
  return {ffn.fc1.get(), ffn.fc2.get()};
}

// Its output projection (the lab's depth profile) and that Linear's name inside the FFN.
std::pair<std::string, const nn::Linear*> ffn_output(const nn::FFN& ffn) {
  if (ffn.down_proj) return {"down_proj", ffn.down_proj.get()};
  return {"fc2", ffn.fc2.get()};
}

}  // namespace

nn::ResidualBlockOptions residual_options(const RunConfig& c, Generator* dropout_generator) {
  nn::ResidualBlockOptions residual;
  residual.norm = lab::to_string(c.norm);
  if (c.dropout > 0.0) {
    if (!dropout_generator)
      throw std::invalid_argument("residual_options: --dropout " + format_double(c.dropout) +
                                  " needs the model's own dropout Generator (DepthModel's); none was given");
    residual.dropout = c.dropout;
    residual.dropout_generator = dropout_generator;
  }
  if (c.placement == nn::Placement::deepnorm) {
    const auto dn = nn::deepnorm_constants(c.depth);
    residual.deepnorm_alpha = dn.alpha;
    residual.deepnorm_beta = dn.beta;
  }
  return residual;
}

nn::TransformerBlockOptions transformer_block_options(const RunConfig& c, Generator* dropout_generator) {
  nn::TransformerBlockOptions options;
  options.hidden = ffn_hidden(c);
  options.activation = tapegrad::to_string(c.activation);
  options.residual = residual_options(c, dropout_generator);
  if (has_llama_attention(c)) {  // LLaMA's attention: separate projections without biases, RoPE, GQA
    options.separate_qkv = true;
    options.num_kv_heads = c.kv_heads;
    if (c.positions == Positions::rope) options.rope = RopeStyle::half_split;
    if (c.positions == Positions::rope_interleaved) options.rope = RopeStyle::interleaved;
  }
  return options;
}

DepthModel::DepthModel(const RunConfig& c, Generator& gen)
    : Module("DepthModel"), transformer(is_transformer(c)), dropout_generator(dropout_seed(c)) {
  const std::size_t hidden = ffn_hidden(c);
  nn::ResidualBlockOptions residual = residual_options(c, &dropout_generator);
  const double beta = c.placement == nn::Placement::deepnorm ? residual.deepnorm_beta : 1.0;  // inside the blocks
  if (transformer) {
    token_embedding = register_module("token_embedding", std::make_shared<nn::Embedding>(c.classes, c.d, gen));
    if (c.positions == Positions::learned)  // RoPE puts the positions into every attention instead
      position_embedding = register_module("position_embedding", std::make_shared<nn::Embedding>(c.seq_len, c.d, gen));
  } else {
    input = register_module("input", std::make_shared<nn::Linear>(c.d_in, c.d, true, gen));
  }
  blocks = register_module("blocks", std::make_shared<nn::Sequential>());
  const nn::TransformerBlockOptions block_options = transformer_block_options(c, &dropout_generator);  // every block's
  for (std::size_t l = 0; l < c.depth; ++l) {
    if (transformer) {
      blocks->append(std::make_shared<nn::TransformerBlock>(c.d, c.heads, c.placement, block_options, gen));
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
        if (block.attention) {
          xavier_linear(*block.attention->out_proj, beta, gen);  // in_proj_weight: Xavier already, β on W_v
        } else {  // DeepNet's β on the value and output projections, not the query and key ones
          const nn::MultiheadAttention& a = *block.multihead_attention;
          xavier_linear(*a.q_proj, 1.0, gen);
          xavier_linear(*a.k_proj, 1.0, gen);
          xavier_linear(*a.v_proj, beta, gen);
          xavier_linear(*a.o_proj, beta, gen);
        }
        for (nn::Linear* layer : ffn_linears(*block.feed_forward)) xavier_linear(*layer, beta, gen);
      } else {
        auto& ffn = dynamic_cast<nn::FFN&>(*blocks->at<nn::ResidualBlock>(l).sublayer);
        for (nn::Linear* layer : ffn_linears(ffn)) xavier_linear(*layer, beta, gen);
      }
    }
    xavier_linear(*head, 1.0, gen);
  }
  if (transformer && c.embed_scale == EmbedScale::unit) {  // the same draws, scaled: E||x_0||^2 = 2d/(2d) = 1
    const double tables = position_embedding ? 2.0 : 1.0;   // (with RoPE, the token table alone: d/d = 1)
    const double scale = 1.0 / std::sqrt(tables * static_cast<double>(c.d));
    for (nn::Embedding* e : {token_embedding.get(), position_embedding.get()})
      if (e) e->weight.mutable_value() *= scale;
  }
}

Tensor DepthModel::embed(const Tensor& x) {
  // Positions 0..S−1 are the whole position table, so its lookup of arange(S) is the table itself,
  // added to every sequence of the batch by broadcasting: (B, S, d) + (S, d).
  if (!transformer) return (*input)(x);
  return position_embedding ? (*token_embedding)(x) + position_embedding->weight : (*token_embedding)(x);
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
  if (transformer) return ffn_output(*blocks->at<nn::TransformerBlock>(block).feed_forward).second->weight;
  const auto& rb = blocks->at<nn::ResidualBlock>(block);
  return ffn_output(dynamic_cast<const nn::FFN&>(*rb.sublayer)).second->weight;
}

std::vector<std::pair<std::string, const Tensor*>> DepthModel::output_projections(std::size_t block) const {
  if (transformer) {
    const auto& b = blocks->at<nn::TransformerBlock>(block);
    if (b.multihead_attention)
      return {{"attn.self_attn.o_proj.weight", &b.multihead_attention->o_proj->weight},
              {"ffn.ffn." + ffn_output(*b.feed_forward).first + ".weight", &fc2_weight(block)}};
    return {{"attn.self_attn.out_proj.weight", &b.attention->out_proj->weight},
            {"ffn.ffn." + ffn_output(*b.feed_forward).first + ".weight", &fc2_weight(block)}};
  }
  const auto& ffn = dynamic_cast<const nn::FFN&>(*blocks->at<nn::ResidualBlock>(block).sublayer);
  return {{"ffn." + ffn_output(ffn).first + ".weight", &fc2_weight(block)}};
}

}  // namespace tapegrad::lab
