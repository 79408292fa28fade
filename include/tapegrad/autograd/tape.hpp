#pragma once
// The tape: a plain ordered list of the ops recorded since the last backward().
// backward() walks it in reverse. In gdb, `p tapegrad::tape()` tells the story.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

struct TapeEntry;

// An op's backward: given dL/d(output), add dL/d(input) to each input that
// requires grad (Tensor::accumulate_grad). It reads inputs and output from
// the entry; anything else it needs (saved statistics) it captures.
// The lambda an op records only unpacks the entry and calls the op's named backward
// function (layer_norm_backward, relu_backward, ...), where the math is.
using BackwardFn = std::function<void(const Array& grad_output, const TapeEntry& entry)>;

// On a named backward function's definition: keeps it a real function in every build
// (never inlined into the lambda), so `break tapegrad::layer_norm_backward` stops there.
#define TAPEGRAD_BACKWARD __attribute__((noinline))

struct TapeEntry {
  std::string op;                           // "matmul", "layer_norm", ...
  std::vector<Tensor> inputs;
  Tensor output;
  BackwardFn backward;                      // emptied once it has run, unless backward(retain_graph=true)
  std::vector<std::uint64_t> input_versions;  // to refuse in-place edits since recording
  Precision precision = Precision::fp64;      // of the precision_scope it ran in: its backward rounds to it
};

class Tape {
 public:
  std::vector<TapeEntry> entries;
  std::uint64_t generation = 1;  // bumped on release: older tensors' entries are gone

  std::size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }
  const TapeEntry& operator[](std::size_t i) const { return entries.at(i); }

  // Drops every entry (and the intermediate tensors they hold).
  void clear();
  // One line per entry: "  3: matmul  (64, 16) @ (16, 32) -> (64, 32)".
  std::string to_string() const;
};

// This thread's tape (each thread records on its own).
Tape& tape();

// Whether `x` is the output of an entry of `t` (and not of an entry since released: its
// tape_index points at this tape's generation). The tape views and pictures ask this of inputs.
bool made_on(const Tape& t, const Tensor& x);

// ---- grad mode (thread-local, like PyTorch) ----
bool is_grad_enabled();
void set_grad_enabled(bool enabled);

// RAII guard: nothing is recorded while it lives.
//   { tapegrad::no_grad guard; auto y = model(x); }
class no_grad {
 public:
  no_grad();
  ~no_grad();
  no_grad(const no_grad&) = delete;
  no_grad& operator=(const no_grad&) = delete;

 private:
  bool previous_;
};

// RAII guard: recording is on while it lives, even inside a no_grad.
class enable_grad {
 public:
  enable_grad();
  ~enable_grad();
  enable_grad(const enable_grad&) = delete;
  enable_grad& operator=(const enable_grad&) = delete;

 private:
  bool previous_;
};

// Makes the op's output tensor and, if grad mode is on and any input requires
// grad, appends an entry to the tape. Every op goes through here.
Tensor record(const char* op, std::vector<Tensor> inputs, Array value, BackwardFn backward);

// An op's inputs for record(), some of them optional (a bias may be absent). Only
// defined tensors are recorded; add() returns the tensor's slot, where it went on the
// entry (OpInputs::absent if it was not given), which the op's lambda captures so that
// its backward finds the tensor by name (optional_input(e, bias_slot)) instead of by counting.
struct OpInputs {
  static constexpr int absent = -1;
  std::vector<Tensor> tensors;
  int add(const Tensor& t) {
    if (!t.defined()) return absent;
    tensors.push_back(t);
    return static_cast<int>(tensors.size()) - 1;
  }
};

// The input recorded at `slot` (from OpInputs::add), or an undefined Tensor if it was
// absent: an optional input reaches the backward as the op was given it (test .defined()).
inline const Tensor& optional_input(const TapeEntry& e, int slot) {
  static const Tensor undefined;
  return slot == OpInputs::absent ? undefined : e.inputs[static_cast<std::size_t>(slot)];
}

// The same as a pointer, null if it was absent.
inline const Tensor* input_at(const TapeEntry& e, int slot) {
  return slot == OpInputs::absent ? nullptr : &e.inputs[static_cast<std::size_t>(slot)];
}

}  // namespace tapegrad
