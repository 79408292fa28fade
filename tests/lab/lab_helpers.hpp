#pragma once
// Shared by the [lab] tests: a run small enough to train in milliseconds.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tapegrad/lab/replay.hpp"
#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/lab/sweep.hpp"

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

// A sweep of 4 tiny runs: post and rezero at depths 1 and 2 (width 4, 4 steps of batch 8, lr 1e-2, seed 0).
inline lab::SweepGrid tiny_grid() {
  lab::SweepGrid g;
  g.placements = {nn::Placement::post, nn::Placement::rezero};
  g.lrs = {1e-2};
  g.warmups = {0};
  g.depths = {1, 2};
  g.widths = {4};
  g.steps = {4};
  g.batches = {8};
  g.seeds = {0};
  g.base.train_size = 32;
  g.base.eval_size = 16;
  g.base.eval_every = 2;
  return g;
}

// A fresh, empty folder under the system's temp area: tapegrad-lab-test-<name>.
inline std::string scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tapegrad-lab-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
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
