#pragma once
// Replay records: everything needed to redo one run elsewhere (PyTorch, via
// tools/replay_torch.py) and compare the per-step losses.
//
//   DIR/config.json        the RunConfig (plus DeepNorm's α, β, ...)
//   DIR/<name>.npy         each initial parameter, named by its PyTorch state_dict key
//                          ("input.weight", "blocks.3.ffn.fc1.weight", "final_norm.bias", ...),
//                          float64; Linear weights (out, in)
//   DIR/x.npy, DIR/y.npy   the train set: (train_size, d_in) float64, (train_size) int64; for --arch
//                          transformer the tokens (train_size, seq_len) float64 and labels (train_size, seq_len) int64
//   DIR/batches.npy        minibatch indices per step, (steps, batch) int64
//   DIR/losses.npy         tapegrad's per-step training losses, (steps) float64
//                          (fewer if the run hit NaN/Inf: it stops there)

#include <string>
#include <vector>

#include "tapegrad/lab/depth_run.hpp"

namespace tapegrad::lab {

// Runs `config` and writes its record into dir (created if needed).
RunResult write_replay(const std::string& dir, const RunConfig& config);

struct Replay {
  RunConfig config;
  Dataset train;
  Batches batches;
};
// Reads config.json, x.npy, y.npy and batches.npy, checking their shapes against the config.
Replay read_replay(const std::string& dir);

// Re-runs a record in tapegrad: the model built from config.json, its initial
// parameters loaded from the .npy files, trained on the recorded batches.
// Returns the per-step losses.
std::vector<double> replay_losses(const std::string& dir);

// A float64 .npy file as a flat vector (for losses.npy, torch_losses.npy).
std::vector<double> read_npy_vector(const std::string& path);

}  // namespace tapegrad::lab
