#pragma once
// The workloads the benchmarks time, shared by the Google Benchmark programs and
// peak_memory. bench/compare_torch.py builds the same ones in PyTorch.

#include <cstdint>
#include <memory>
#include <vector>

#include "tapegrad/tapegrad.hpp"
#include "tapegrad/lab/depth_model.hpp"

namespace bench {

using tapegrad::Array;
using tapegrad::Tensor;

// One training step of a lab model (DepthModel) on a fixed random batch: forward,
// cross_entropy, backward, Adam step. The model is made from `config` with gen{0}; the derived
// workloads below then draw the batch from the same generator.
struct LabStep {
  tapegrad::lab::RunConfig config;
  tapegrad::Generator gen{0};
  std::unique_ptr<tapegrad::lab::DepthModel> model;
  std::unique_ptr<tapegrad::optim::Adam> adam;
  Array x;
  std::vector<std::int64_t> y;

  explicit LabStep(const tapegrad::lab::RunConfig& c) : config(c) {
    config.train_size = std::max<std::size_t>(config.train_size, config.batch);
    model = std::make_unique<tapegrad::lab::DepthModel>(config, gen);
    adam = std::make_unique<tapegrad::optim::Adam>(model->parameters());
  }

  double run() {
    adam->zero_grad();
    Tensor loss = tapegrad::cross_entropy(model->forward(Tensor(x)), y);
    loss.backward();
    adam->step();
    return loss.item();
  }

  // A forward pass without the tape, as the lab's evaluation runs it.
  double evaluate() {
    tapegrad::no_grad guard;
    return tapegrad::cross_entropy(model->forward(Tensor(x)), y).item();
  }
};

inline tapegrad::lab::RunConfig lab_config(tapegrad::nn::Placement placement, std::size_t depth, std::size_t d,
                                           std::size_t batch) {
  tapegrad::lab::RunConfig c;
  c.placement = placement;
  c.depth = depth;
  c.d = d;
  c.batch = batch;
  return c;
}

// The FFN lab's model (the default --arch ffn) on a batch of random inputs.
struct TrainStep : LabStep {
  TrainStep(tapegrad::nn::Placement placement, std::size_t depth, std::size_t d, std::size_t batch)
      : LabStep(lab_config(placement, depth, d, batch)) {
    x = gen.randn({batch, config.d_in});
    for (std::size_t i = 0; i < batch; ++i) y.push_back(static_cast<std::int64_t>(gen.integer(config.classes)));
  }
};

// The lab's Transformer (--arch transformer): token and position embeddings, `depth`
// TransformerBlocks (self-attention with `heads` heads, then the FFN d → 4d → d, each in the
// placement), a final LayerNorm for pre, Linear(d → classes) at every position; a batch of
// `batch` random sequences of `seq_len` tokens. bench/compare_torch.py's transformer_step is the
// same model in PyTorch.
inline tapegrad::lab::RunConfig transformer_config(tapegrad::nn::Placement placement, std::size_t depth,
                                                   std::size_t d, std::size_t batch, std::size_t heads,
                                                   std::size_t seq_len) {
  tapegrad::lab::RunConfig c = lab_config(placement, depth, d, batch);
  c.arch = tapegrad::lab::Arch::transformer;
  c.heads = heads;
  c.seq_len = seq_len;
  return c;
}

// --preset llama's block on the same model: RMSNorm, SwiGLU (2/3 of 4d, rounded up to 8), RoPE (half-split),
// grouped-query attention with 2 key/value heads; no position embedding. compare_torch.py's llama_step.
inline tapegrad::lab::RunConfig llama_config(tapegrad::nn::Placement placement, std::size_t depth, std::size_t d,
                                             std::size_t batch, std::size_t heads, std::size_t seq_len) {
  tapegrad::lab::RunConfig c = transformer_config(placement, depth, d, batch, heads, seq_len);
  c.norm = tapegrad::lab::NormKind::rms;
  c.activation = tapegrad::Activation::swiglu;
  c.positions = tapegrad::lab::Positions::rope;
  c.kv_heads = 2;
  return c;
}

struct TransformerStep : LabStep {
  TransformerStep(tapegrad::nn::Placement placement, std::size_t depth, std::size_t d, std::size_t batch,
                  std::size_t heads = 4, std::size_t seq_len = 16, bool llama = false)
      : LabStep(llama ? llama_config(placement, depth, d, batch, heads, seq_len)
                      : transformer_config(placement, depth, d, batch, heads, seq_len)) {
    x = Array::from_shape({batch, seq_len});
    for (double& t : x) t = static_cast<double>(gen.integer(config.classes));
    for (std::size_t i = 0; i < batch * seq_len; ++i) y.push_back(static_cast<std::int64_t>(gen.integer(config.classes)));
  }
};

}  // namespace bench
