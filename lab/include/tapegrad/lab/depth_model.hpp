#pragma once
// DepthModel: the lab's network, with the submodule names of the PyTorch model
// in tools/replay_torch.py, so that state_dict keys match one to one:
//
//   input       Linear(d_in → d)
//   blocks      Sequential of `depth` ResidualBlocks, each an FFN (d → 4d → d, ReLU)
//               with the run's placement ("blocks.3.ffn.fc1.weight", "blocks.3.norm.weight", ...)
//   final_norm  LayerNorm(d), only for placements that end un-normalised (pre, sandwich)
//   head        Linear(d → classes)

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/nn/linear.hpp"
#include "tapegrad/nn/normalization.hpp"
#include "tapegrad/nn/sequential.hpp"

namespace tapegrad::lab {

class DepthModel : public nn::Module {
 public:
  // Draws the weights from gen in registration order: input, blocks 0..L−1 (fc1, fc2), head.
  // DeepNorm blocks get α, β = deepnorm_constants(depth).
  DepthModel(const RunConfig& config, Generator& gen);

  Tensor forward(const Tensor& x) override { return forward(x, nullptr); }
  // Also hands out each block's output (the hidden state after block l), if asked.
  Tensor forward(const Tensor& x, std::vector<Tensor>* block_outputs);

  // The second FFN weight of block l (its gradient is the lab's depth profile).
  const Tensor& fc2_weight(std::size_t block) const;

  // Each sublayer's output projection weight in block l, named relative to the block
  // ({"ffn.fc2.weight", &fc2}): the weights whose init gradients Xiong et al. 2020 (Fig. 3) plot.
  std::vector<std::pair<std::string, const Tensor*>> output_projections(std::size_t block) const;

  std::shared_ptr<nn::Linear> input;
  std::shared_ptr<nn::Sequential> blocks;
  std::shared_ptr<nn::LayerNorm> final_norm;  // null unless needs_final_norm(placement)
  std::shared_ptr<nn::Linear> head;
};

}  // namespace tapegrad::lab
