#pragma once
// The grid of a sweep, as data: the lists of the swept axes and of the settings a sweep lists, and the
// settings of every run. Below the field table (run_fields.hpp names these lists) and the sweep (sweep.hpp
// expands the grid, reads and writes sweep.json), so that neither has to include the other.

#include <cstdint>
#include <vector>

#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

struct SweepGrid {
  std::vector<nn::Placement> placements;
  std::vector<double> lrs;
  std::vector<long> warmups;
  std::vector<std::size_t> depths;
  std::vector<std::size_t> widths;
  std::vector<long> steps;
  std::vector<std::size_t> batches;
  std::vector<std::uint64_t> seeds;
  // The architecture's settings a sweep puts side by side (--inits pytorch,xavier, --norms layer,rms, ...):
  // empty, or one value, means base's value for every run.
  std::vector<Init> inits;
  std::vector<NormKind> norms;
  std::vector<Activation> activations;
  std::vector<std::size_t> ffn_mults, head_counts, seq_lens;
  std::vector<RunPrecision> precisions;
  std::vector<double> dropouts;
  RunConfig base;  // the settings of every run (train_size, eval_size, eval_every, arch, and the settings above
                   // when not listed); its swept fields are ignored

  bool operator==(const SweepGrid& other) const;
};

}  // namespace tapegrad::lab
