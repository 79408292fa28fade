#pragma once
// Shared by the [lab] tests: a run small enough to train in milliseconds.

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "tapegrad/lab/replay.hpp"
#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::testing {

// depth blocks of width 4, 6 steps of batch 8 on 32 train / 16 eval examples, lr 1e-2, evals every 2 steps.
inline lab::RunConfig tiny_run(nn::Placement placement, std::size_t depth = 2) {
  lab::RunConfig c;
  c.placement = placement;
  c.depth = depth;
  c.d = 4;
  c.steps = 6;
  c.batch = 8;
  c.train_size = 32;
  c.eval_size = 16;
  c.eval_every = 2;
  c.lr = 1e-2;
  return c;
}

// A committed replay record (tests/fixtures/replay/...): tapegrad's replay of it gives the per-step
// losses PyTorch recorded (torch_losses.npy) to 1e-9 relative, and the record does train.
inline void check_replay_parity(const std::filesystem::path& dir) {
  INFO("record " << dir.string());
  REQUIRE(std::filesystem::exists(dir / "torch_losses.npy"));
  const std::vector<double> torch_losses = lab::read_npy_vector((dir / "torch_losses.npy").string());
  const std::vector<double> ours = lab::replay_losses(dir.string());
  REQUIRE(ours.size() == torch_losses.size());
  REQUIRE(ours.size() >= 10);
  double worst = 0.0;
  for (std::size_t i = 0; i < ours.size(); ++i)
    worst = std::max(worst, std::abs(ours[i] - torch_losses[i]) / std::abs(torch_losses[i]));
  INFO("largest relative difference " << worst);
  CHECK(worst <= 1e-9);
  CHECK(torch_losses.back() < torch_losses.front());  // the record does train
}

}  // namespace tapegrad::testing
