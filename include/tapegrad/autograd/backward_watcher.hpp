#pragma once
// Watching a backward() walk (debug/draw.hpp's backward_steps records its frames with it).

#include <cstddef>
#include <functional>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

// Called after each entry's backward has run, while its output's gradient is still there.
// One per thread, none by default; set_backward_watcher returns the previous one, to put back.
using BackwardWatcher = std::function<void(const TapeEntry& entry, std::size_t index)>;
BackwardWatcher set_backward_watcher(BackwardWatcher watcher);

}  // namespace tapegrad
