#pragma once
// Checkpoints: one NumPy .npy file per named parameter, in a directory.
//
//   save_checkpoint("ckpt/step_1000", model.named_parameters());
//   load_checkpoint("ckpt/step_1000", model.named_parameters());
//
// The file of parameter "blocks.3.ffn.fc1.weight" is
// "ckpt/step_1000/blocks.3.ffn.fc1.weight.npy" (float64, C order), so
// `numpy.load` reads it, and a PyTorch state_dict key maps to a file name.
//
// Writes are atomic per file: the bytes go to "<name>.npy.tmp" first, which
// is renamed over "<name>.npy" only once completely written, so a crash
// mid-save leaves either the old file or the new one, never half of one.
// (No fsync: this protects against the process dying, not against power loss.)
//
// Loading is all or nothing: every file is read and checked (present,
// float64 .npy, complete, the parameter's shape) before any parameter changes.

#include <string>

#include "tapegrad/optim/optimizer.hpp"

namespace tapegrad::optim {

// Creates `dir` (and its parents) if needed. Throws Error if a name cannot be
// a file name (empty, "." or "..", or contains '/'), if two parameters share
// a name, or if the directory or a file cannot be written.
void save_checkpoint(const std::string& dir, const NamedTensors& named_params);

// Reads <dir>/<name>.npy into each parameter's value, in place. Throws Error
// for a missing or unreadable file, and ShapeError (naming the parameter, the
// file and both shapes) when a file's shape differs from its parameter's.
// Files in dir that match no parameter are ignored.
void load_checkpoint(const std::string& dir, const NamedTensors& named_params);

// The file that holds a parameter: <dir>/<name>.npy.
std::string checkpoint_file(const std::string& dir, const std::string& name);

}  // namespace tapegrad::optim
