#pragma once
// Shared by the [lab] tests: a run small enough to train in milliseconds.

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

}  // namespace tapegrad::testing
