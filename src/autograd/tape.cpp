#include "tapegrad/autograd/tape.hpp"

#include "engine_access.hpp"
#include "tapegrad/autograd/hooks.hpp"
#include "tapegrad/autograd/precision.hpp"

#include <iomanip>
#include <sstream>

namespace tapegrad {

namespace {
// One tape and one grad-mode flag per thread, as in PyTorch. They live in
// this .cpp (not in a header) so that notebooks never JIT a thread_local.
thread_local Tape this_thread_tape;
thread_local bool grad_enabled = true;
thread_local const AutogradHook* hook = nullptr;  // anomaly mode's, while it is on
}  // namespace

Tape& tape() { return this_thread_tape; }

bool made_on(const Tape& t, const Tensor& x) {
  const TensorImpl& impl = x.impl();
  return impl.tape_index >= 0 && impl.tape_generation == t.generation &&
         static_cast<std::size_t>(impl.tape_index) < t.size() && t[impl.tape_index].output.same(x);
}

bool is_grad_enabled() { return grad_enabled; }
void set_grad_enabled(bool enabled) { grad_enabled = enabled; }

no_grad::no_grad() : previous_(grad_enabled) { grad_enabled = false; }
no_grad::~no_grad() { grad_enabled = previous_; }
enable_grad::enable_grad() : previous_(grad_enabled) { grad_enabled = true; }
enable_grad::~enable_grad() { grad_enabled = previous_; }

const AutogradHook* autograd_hook() { return hook; }
const AutogradHook* set_autograd_hook(const AutogradHook* h) {
  const AutogradHook* previous = hook;
  hook = h;
  return previous;
}

void Tape::clear() {
  for (TapeEntry& e : entries) EngineAccess::impl(e.output).graph_released = true;
  entries.clear();
  ++generation;
}

std::string Tape::to_string() const {
  std::ostringstream out;
  out << "Tape with " << entries.size() << (entries.size() == 1 ? " entry" : " entries") << '\n';
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const TapeEntry& e = entries[i];
    out << std::setw(4) << i << ": " << std::left << std::setw(14) << e.op << std::right;
    for (std::size_t k = 0; k < e.inputs.size(); ++k) out << (k ? ", " : "") << e.inputs[k].label();
    out << " -> " << e.output.label() << '\n';
  }
  return out.str();
}

Tensor record(const char* op, std::vector<Tensor> inputs, Array value, BackwardFn backward) {
  round_to_current_precision(value);  // inside a precision_scope: the op's result in its format
  Tensor output(std::move(value));
  bool any_requires_grad = false;
  for (const Tensor& t : inputs) {
    if (!t.defined()) throw Error(std::string(op) + ": an input tensor is undefined (default-constructed)");
    any_requires_grad = any_requires_grad || t.requires_grad();
  }
  const bool recorded = any_requires_grad && is_grad_enabled();
  Tape& t = tape();
  // A debug hook (anomaly mode) sees every op, recorded or not: a NaN made under no_grad is still a NaN.
  if (hook) hook->after_forward(op, inputs, output.value(), recorded ? static_cast<long>(t.entries.size()) : -1);
  if (!recorded) return output;

  TensorImpl& out = EngineAccess::impl(output);
  out.requires_grad = true;
  out.made_by = op;
  out.tape_index = static_cast<long>(t.entries.size());
  out.tape_generation = t.generation;

  TapeEntry entry;
  entry.op = op;
  for (const Tensor& in : inputs) entry.input_versions.push_back(EngineAccess::impl(in).version);
  entry.inputs = std::move(inputs);
  entry.output = output;
  entry.backward = std::move(backward);
  entry.precision = current_precision();
  t.entries.push_back(std::move(entry));
  return output;
}

}  // namespace tapegrad
