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

// One training step of the depth-lab model (DepthModel): forward, cross_entropy,
// backward, Adam step, on a fixed random batch.
struct TrainStep {
  tapegrad::lab::RunConfig config;
  tapegrad::Generator gen{0};
  std::unique_ptr<tapegrad::lab::DepthModel> model;
  std::unique_ptr<tapegrad::optim::Adam> adam;
  Array x;
  std::vector<std::int64_t> y;

  TrainStep(tapegrad::nn::Placement placement, std::size_t depth, std::size_t d, std::size_t batch) {
    config.placement = placement;
    config.depth = depth;
    config.d = d;
    config.batch = batch;
    config.train_size = std::max<std::size_t>(config.train_size, batch);
    model = std::make_unique<tapegrad::lab::DepthModel>(config, gen);
    adam = std::make_unique<tapegrad::optim::Adam>(model->parameters());
    x = gen.randn({batch, config.d_in});
    for (std::size_t i = 0; i < batch; ++i) y.push_back(static_cast<std::int64_t>(gen.integer(config.classes)));
  }

  double run() {
    adam->zero_grad();
    Tensor loss = tapegrad::cross_entropy(model->forward(Tensor(x)), y);
    loss.backward();
    adam->step();
    return loss.item();
  }
};

}  // namespace bench
