#include "tapegrad/lab/depth_model.hpp"

#include "tapegrad/nn/ffn.hpp"
#include "tapegrad/nn/residual_block.hpp"

namespace tapegrad::lab {

DepthModel::DepthModel(const RunConfig& c, Generator& gen) : Module("DepthModel") {
  validate(c);
  input = register_module("input", std::make_shared<nn::Linear>(c.d_in, c.d, true, gen));
  nn::ResidualBlockOptions options;
  options.sublayer_name = "ffn";  // PyTorch's state_dict keys: blocks.3.ffn.fc1.weight
  if (c.placement == nn::Placement::deepnorm) {
    const auto dn = nn::deepnorm_constants(c.depth);
    options.deepnorm_alpha = dn.alpha;
    options.deepnorm_beta = dn.beta;
  }
  blocks = register_module("blocks", std::make_shared<nn::Sequential>());
  for (std::size_t l = 0; l < c.depth; ++l)
    blocks->append(std::make_shared<nn::ResidualBlock>(std::make_shared<nn::FFN>(c.d, 4 * c.d, "relu", gen),
                                                       c.placement, c.d, options));
  if (nn::needs_final_norm(c.placement)) final_norm = register_module("final_norm", std::make_shared<nn::LayerNorm>(c.d));
  head = register_module("head", std::make_shared<nn::Linear>(c.d, c.classes, true, gen));
}

Tensor DepthModel::forward(const Tensor& x, std::vector<Tensor>* block_outputs) {
  Tensor h = (*input)(x);
  for (std::size_t l = 0; l < blocks->size(); ++l) {
    h = (*blocks)[l](h);
    if (block_outputs) block_outputs->push_back(h);
  }
  if (final_norm) h = (*final_norm)(h);
  return (*head)(h);
}

const Tensor& DepthModel::fc2_weight(std::size_t block) const {
  const auto& rb = blocks->at<nn::ResidualBlock>(block);
  return dynamic_cast<const nn::FFN&>(*rb.sublayer).fc2->weight;
}

std::vector<std::pair<std::string, const Tensor*>> DepthModel::output_projections(std::size_t block) const {
  return {{"ffn.fc2.weight", &fc2_weight(block)}};
}

}  // namespace tapegrad::lab
