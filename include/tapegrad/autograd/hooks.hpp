#pragma once
// The engine's hook for a debug layer: record() and backward() call it if one is
// installed, and know nothing else about the debugging tools. Anomaly mode
// (debug/anomaly.hpp) is the one that installs it, so the dependency points one way:
// debug -> autograd. With no hook installed (the default) the engine calls nothing.

#include <cstddef>
#include <vector>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

struct AutogradHook {
  // Called by record() after every op's forward, recorded or not: `tape_index` is where
  // the op went on the tape, -1 if it was not recorded. It may throw to stop the op.
  void (*after_forward)(const char* op, const std::vector<Tensor>& inputs, const Array& output, long tape_index);
  // Called by the backward walk instead of entry.backward(grad_output, entry): it must
  // run that backward itself (and may check what it did, and throw).
  void (*run_entry_backward)(const TapeEntry& entry, const Array& grad_output, std::size_t tape_index);
};

// This thread's hook, or null (none installed). Thread-local, like grad mode.
const AutogradHook* autograd_hook();
// Installs `hook` (null: none) for this thread; returns the one it replaces.
const AutogradHook* set_autograd_hook(const AutogradHook* hook);

}  // namespace tapegrad
