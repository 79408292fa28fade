#pragma once
// The engine's hooks for the debug layer: record() and backward() call them if they are
// installed, and know nothing else about the debugging tools, so the dependency points one
// way: debug -> autograd. With none installed (the default) the engine calls nothing.
//   AutogradHook      anomaly mode's (debug/anomaly.hpp): checks around every forward and
//                     backward, and it runs the entry's backward itself;
//   BackwardWatcher   backward_steps' (debug/draw.hpp): watches the walk, changes nothing.
// Two slots, not one struct, because both may be on at once (backward_steps of a model under
// detect_anomaly) and each is installed and put back by its own tool.

#include <cstddef>
#include <functional>
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

// Called after each entry's backward has run, while its output's gradient is still there.
// One per thread, none by default; set_backward_watcher returns the previous one, to put back.
using BackwardWatcher = std::function<void(const TapeEntry& entry, std::size_t index)>;
BackwardWatcher set_backward_watcher(BackwardWatcher watcher);

}  // namespace tapegrad
