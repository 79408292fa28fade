#pragma once
// A sweep: the grid of runs (placements × learning rates × warmups × depths ×
// widths × steps × batch sizes × seeds), its canonical order, and shards of it.

#include <string>
#include <vector>

#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/lab/sweep_grid.hpp"

namespace tapegrad::lab {

// Every run, in the canonical order that every CSV follows: placement outermost,
// then lr, warmup, depth, width, steps, batch, seed, then the listed settings innermost. Throws
// tapegrad::Error for an empty list, a repeated value or an invalid run.
std::vector<RunConfig> expand(const SweepGrid& grid);

// sweep.json: how a results folder was made (so --resume and merge can check they continue the same sweep).
std::string to_json(const SweepGrid& grid);
SweepGrid sweep_grid_from_json(const std::string& text);

// The i-th of n slices (0 <= i < n): the runs whose canonical index ≡ i (mod n),
// which spreads the deep (slow) runs evenly over the shards.
struct Shard {
  std::size_t index = 0, count = 1;
  bool contains(std::size_t run_index) const { return run_index % count == index; }
};
// "i/n", e.g. "0/4" ... "3/4"; throws tapegrad::Error with the expected form otherwise.
Shard parse_shard(const std::string& text);

}  // namespace tapegrad::lab
