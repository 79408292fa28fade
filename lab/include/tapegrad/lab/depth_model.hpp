#pragma once
// DepthModel: the lab's network, with the submodule names of the PyTorch model
// in tools/replay_torch.py, so that state_dict keys match one to one.
//
// --arch ffn (the default):
//   input       Linear(d_in → d)
//   blocks      Sequential of `depth` ResidualBlocks, each an FFN (d → ffn_mult·d → d)
//               with the run's placement ("blocks.3.ffn.fc1.weight", "blocks.3.norm.weight", ...)
//   final_norm  a norm of the run's kind, only for placements that end un-normalised (pre, sandwich)
//   head        Linear(d → classes)
//   with --dropout p: each block's "dropout" after its sublayer (residual dropout, nn::ResidualBlock)
//
// --arch transformer (input: token ids (B, S); output: logits (B·S, classes), one row per position):
//   token_embedding     Embedding(classes → d)
//   position_embedding  Embedding(seq_len → d), learned, added to the tokens' vectors
//   blocks              Sequential of `depth` TransformerBlocks ("blocks.3.attn.self_attn.in_proj_weight",
//                       "blocks.3.attn.norm.weight", "blocks.3.ffn.ffn.fc2.weight", ...)
//   final_norm, head    as above, applied at every position
//   LLaMA-style (--positions rope, --kv-heads, --activation swiglu; --preset llama): no position_embedding with
//   RoPE; the attention "blocks.3.attn.self_attn.{q,k,v,o}_proj.weight" (nn::MultiheadAttention, no biases);
//   the FFN "blocks.3.ffn.ffn.{gate,up,down}_proj.weight" (Hugging Face's LlamaAttention and LlamaMLP names)
//
// Init (config.init): "pytorch" keeps every module's PyTorch default; "xavier" (the papers')
// redraws every Linear weight Xavier-uniform, and zeroes its bias, after construction (the
// attention's in_proj_weight is Xavier-uniform already; embeddings stay N(0, 1)). DeepNorm's β
// scales the weights inside the blocks either way (for xavier as the gain, as in DeepNet).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/nn/embedding_layer.hpp"
#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/nn/norm_layers.hpp"
#include "tapegrad/nn/sequential.hpp"
#include "tapegrad/nn/transformer_block.hpp"

namespace tapegrad::lab {

// The blocks' residual options (the norm kind; DeepNorm's α and β = deepnorm_constants(depth) for deepnorm) and a
// Transformer block's options (FFN width and activation; the LLaMA-style attention when has_llama_attention): the
// lab's model and the text tasks' nn::TransformerLM (lm_training.hpp) build their blocks alike. A run with
// --dropout needs the Generator its masks are drawn from (DepthModel::dropout_generator); without one it is refused.
nn::ResidualBlockOptions residual_options(const RunConfig& config, Generator* dropout_generator = nullptr);
nn::TransformerBlockOptions transformer_block_options(const RunConfig& config, Generator* dropout_generator = nullptr);

class DepthModel : public nn::Module {
 public:
  // Draws the weights from gen in registration order (input or the two embeddings, blocks 0..L−1,
  // head), then, for init "xavier", again in that order. DeepNorm blocks get α, β = deepnorm_constants(depth).
  DepthModel(const RunConfig& config, Generator& gen);
  // Not copied or moved: its Dropout layers point at dropout_generator.
  DepthModel(const DepthModel&) = delete;
  DepthModel& operator=(const DepthModel&) = delete;

  Tensor forward(const Tensor& x) override { return forward(x, nullptr); }
  // Also hands out each block's output (the hidden state after block l), if asked.
  Tensor forward(const Tensor& x, std::vector<Tensor>* block_outputs);

  // The input of block 0: the input Linear's output, or the token plus position embeddings.
  Tensor embed(const Tensor& x);

  // The FFN's output weight of block l, fc2 (down_proj for SwiGLU): its gradient is the lab's depth profile.
  const Tensor& fc2_weight(std::size_t block) const;

  // Each sublayer's output projection in block l, named as in the block's state_dict keys:
  // ffn: {"ffn.fc2.weight"}; transformer: {"attn.self_attn.out_proj.weight", "ffn.ffn.fc2.weight"}.
  std::vector<std::pair<std::string, const Tensor*>> output_projections(std::size_t block) const;

  bool transformer = false;
  // The residual dropout's masks (config.dropout > 0): a stream of its own, Generator(dropout_seed(config)), so
  // that the init, the data and the batches are those of the same run without dropout. Declared before the
  // blocks, whose Dropout layers hold it.
  Generator dropout_generator;
  std::shared_ptr<nn::Linear> input;                                       // ffn only
  std::shared_ptr<nn::Embedding> token_embedding, position_embedding;      // transformer only
  std::shared_ptr<nn::Sequential> blocks;
  std::shared_ptr<nn::Module> final_norm;  // null unless needs_final_norm(placement)
  std::shared_ptr<nn::Linear> head;
};

}  // namespace tapegrad::lab
