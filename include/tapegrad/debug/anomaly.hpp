#pragma once
// Anomaly mode: find the FIRST op that makes a NaN or an Inf, forward or backward.
//
//   {
//     tapegrad::detect_anomaly guard;  // like torch.autograd.detect_anomaly()
//     Tensor loss = model(x);          // throws AnomalyError at the op whose output is NaN/Inf
//     loss.backward();                 // throws AnomalyError at the op whose backward made a NaN/Inf gradient
//   }
//
// Without it a NaN spreads silently through every later op and you only see
// `loss = nan`. With it you get the op's name, its tape position, the input
// shapes and the first bad index. In gdb, `catch throw` (or
// `break tapegrad::AnomalyError::AnomalyError`) then stops right there.
//
// The checks scan every output (and every input gradient in backward), so
// anomaly mode is slow: turn it on to hunt a NaN, not for training runs.

#include <cstddef>
#include <string>

#include "tapegrad/autograd/error.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

// Thrown by anomaly mode. The fields say the same as what(), for tests and tools.
class AnomalyError : public Error {
 public:
  AnomalyError(const std::string& message, std::string op, long tape_index, bool in_backward, long input,
               std::size_t first_bad, std::size_t bad_count)
      : Error(message),
        op(std::move(op)),
        tape_index(tape_index),
        in_backward(in_backward),
        input(input),
        first_bad(first_bad),
        bad_count(bad_count) {}

  std::string op;          // "log", "sqrt", ...
  long tape_index;         // its position on the tape; -1 if the op was not recorded
  bool in_backward;        // false: its forward output was bad; true: its backward made a bad gradient
  long input;              // backward: which input got the bad gradient; -1 in forward
  std::size_t first_bad;   // flat index of the first NaN/Inf
  std::size_t bad_count;   // how many values are NaN or Inf
};

// ---- on or off (thread-local, like grad mode): on means its checks are the engine's hook ----
bool is_anomaly_enabled();
void set_detect_anomaly(bool enabled);

// RAII guard: anomaly mode is on while it lives (restores the previous state).
class detect_anomaly {
 public:
  explicit detect_anomaly(bool enabled = true);
  ~detect_anomaly();
  detect_anomaly(const detect_anomaly&) = delete;
  detect_anomaly& operator=(const detect_anomaly&) = delete;

 private:
  bool previous_;
};

// ---- the checks: what anomaly mode installs as the engine's hook (autograd/hooks.hpp); not needed by users ----

// Throws AnomalyError if `value`, the forward output of `op`, holds a NaN/Inf.
// tape_index is where the op is (or would be) recorded, -1 if it is not recorded.
void check_forward_anomaly(const char* op, const std::vector<Tensor>& inputs, const Array& value, long tape_index);

// Runs entry.backward(grad_output, entry) and throws AnomalyError if it turned
// the gradient of one of the entry's inputs from finite into NaN/Inf.
void run_backward_checked(const TapeEntry& entry, const Array& grad_output, std::size_t tape_index);

}  // namespace tapegrad
