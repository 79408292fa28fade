// backward(): walk the tape in reverse, calling each entry's backward. The walk comes
// first; then what it calls, what runs before it (backward_pass) and the seed's edge cases.
#include "tapegrad/autograd/tape.hpp"

#include <optional>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xshape.hpp>

#include "engine_access.hpp"
#include "tapegrad/autograd/hooks.hpp"
#include "tapegrad/autograd/precision.hpp"

namespace tapegrad {

namespace {

TensorImpl& impl(const Tensor& t) { return EngineAccess::impl(t); }

thread_local BackwardWatcher backward_watcher;  // set_backward_watcher; in this .cpp, not a header

class RootGradient;  // dL/d(root), where the walk starts (defined below)
const Array* grad_output_of(const TapeEntry& e, long index, const RootGradient& dl_droot);
void call_backward(TapeEntry& e, const Array& grad_output, long index);
void free_what_was_used(TapeEntry& e, bool is_root, bool retain_graph);

// The walk: the tape in reverse from the root's entry, each entry's backward once.
void run_backward(const Tensor& root, const RootGradient& dl_droot, bool retain_graph) {
  const long root_index = impl(root).tape_index;
  Tape& t = tape();
  for (long i = root_index; i >= 0; --i) {
    TapeEntry& e = t.entries[static_cast<std::size_t>(i)];
    const Array* grad_output = grad_output_of(e, i, dl_droot);
    if (!grad_output) continue;  // e is not on a path to the root
    call_backward(e, *grad_output, i);
    if (backward_watcher) backward_watcher(e, static_cast<std::size_t>(i));  // backward_steps' frames
    free_what_was_used(e, i == root_index, retain_graph);
  }
}

void check_not_modified(const TapeEntry& e, std::size_t index) {
  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    const TensorImpl& in = impl(e.inputs[k]);
    if (in.version != e.input_versions[k])
      throw AutogradError("backward: input " + std::to_string(k) + " " + e.inputs[k].label() + " of tape entry " +
                          std::to_string(index) + " '" + e.op + "' was modified in place after the op was recorded " +
                          "(version " + std::to_string(e.input_versions[k]) + " then, " + std::to_string(in.version) +
                          " now); its gradient would be wrong. Do in-place updates after backward() or under no_grad on fresh values");
  }
}

// Runs the entry's backward, which adds dL/d(input) to each input that requires grad.
// A debug hook (anomaly mode: it throws at the first NaN/Inf) runs it in its place.
void call_backward(TapeEntry& e, const Array& grad_output, long index) {
  check_not_modified(e, static_cast<std::size_t>(index));
  // The gradients an op's backward stores are rounded to the precision its forward ran in, as
  // under autocast (precision.hpp); fp64, no rounding, for ops recorded outside any precision_scope.
  precision_scope as_recorded(e.precision);
  if (const AutogradHook* hook = autograd_hook())
    hook->run_entry_backward(e, grad_output, static_cast<std::size_t>(index));
  else
    e.backward(grad_output, e);
}

void release_grad(TensorImpl& t) {
  t.grad = Array();
  t.has_grad = false;
}

// After an entry's backward has run, the gradient of its output is complete (every op
// that used the output comes later on the tape and ran before) and used up: free it, as
// PyTorch does, unless it is retained or the root's (gdb shows the loss's grad=1
// throughout). Memory then holds about one layer's gradients at a time. Likewise what
// the op saved for its backward (captured by the function, e.g. the FFN's hidden layer),
// unless the graph is kept for another pass: the entry stays, with an empty backward.
void free_what_was_used(TapeEntry& e, bool is_root, bool retain_graph) {
  if (!is_root && !impl(e.output).retains_grad) release_grad(impl(e.output));
  if (!retain_graph) e.backward = nullptr;
}

// Intermediate gradients are working storage of one backward pass: a pass starts
// without any. A retained one (retain_grad()) then shows the gradient of the latest pass.
void free_intermediate_grads(Tape& t) {
  for (TapeEntry& e : t.entries) release_grad(impl(e.output));
}

void check_root(const Tensor& root, const Array& seed) {
  if (!root.defined()) throw AutogradError("backward: the tensor is undefined (default-constructed)");
  const TensorImpl& r = impl(root);
  if (!r.requires_grad)
    throw AutogradError("backward: " + root.label() + " does not require grad: none of the tensors it was computed " +
                        "from requires grad, or it was computed under no_grad");
  if (!xt::same_shape(seed.shape(), r.value.shape()))
    throw ShapeError("backward: grad_output has shape " + shape_str(seed.shape()) + " but " + root.label() +
                     " has shape " + shape_str(r.value.shape()) + "; they must be equal");
}

void check_graph_not_released(const Tensor& root, const Tape& t) {
  const TensorImpl& r = impl(root);
  if (r.graph_released || r.tape_generation != t.generation)
    throw AutogradError("backward: the graph of " + root.label() + " (output of '" + r.made_by +
                        "') was already released by an earlier backward() or tape().clear(); pass " +
                        "retain_graph=true to the first backward() to call backward() twice");
}

// Whether `seed` is the gradient buffer of a tensor on the tape, e.g. y.backward(h.grad()):
// this pass frees or adds to such buffers, so it needs a copy of the seed.
bool is_a_grad_on_tape(const Array& seed, const Tape& t) {
  for (const TapeEntry& e : t.entries) {
    if (impl(e.output).has_grad && impl(e.output).grad.data() == seed.data()) return true;
    for (const Tensor& in : e.inputs)
      if (impl(in).has_grad && impl(in).grad.data() == seed.data()) return true;
  }
  return false;
}

// dL/d(root), the gradient the walk starts from. A one-value seed (a loss) is stored as
// the root's grad, so gdb shows grad=1 on the loss; a larger one is handed to the root's
// backward as it is, since copying it would cost as much as a cheap op (torch does not
// copy it either), unless the root keeps its grad.
class RootGradient {
 public:
  RootGradient(const Tensor& root, const Array& seed, const Tape& t) : root_(root) {
    if (is_a_grad_on_tape(seed, t)) copy_ = seed;  // this pass frees or adds to such buffers
    seed_ = copy_ ? &*copy_ : &seed;
  }
  // Before the walk, after the intermediate gradients are freed.
  void store_if_kept() {
    stored_ = seed_->size() == 1 || impl(root_).retains_grad;
    if (stored_) root_.accumulate_grad(*seed_);
  }
  // dL/d(e.output) for the entry at `index`, or null if that output got no gradient
  // (the entry is not on a path to the root).
  const Array* grad_output(const TapeEntry& e, long index) const {
    if (index == impl(root_).tape_index && !stored_) return seed_;
    return impl(e.output).has_grad ? &impl(e.output).grad : nullptr;
  }

 private:
  const Tensor& root_;
  std::optional<Array> copy_;
  const Array* seed_;
  bool stored_ = false;
};

const Array* grad_output_of(const TapeEntry& e, long index, const RootGradient& dl_droot) {
  return dl_droot.grad_output(e, index);
}

// One backward pass: the checks, the seed, the walk, and the release of the tape.
void backward_pass(const Tensor& root, const Array& seed, bool retain_graph) {
  check_root(root, seed);
  const long root_index = impl(root).tape_index;
  if (root_index < 0) {  // a leaf: its gradient is the seed itself
    root.accumulate_grad(seed);
    return;
  }
  Tape& t = tape();
  check_graph_not_released(root, t);

  RootGradient dl_droot(root, seed, t);
  free_intermediate_grads(t);
  dl_droot.store_if_kept();
  try {
    run_backward(root, dl_droot, retain_graph);
  } catch (...) {
    // A walk cut short has used up part of the graph: release all of it, so that a
    // second backward() says so instead of running half a graph.
    if (!retain_graph) t.clear();
    throw;
  }
  if (!impl(root).retains_grad) release_grad(impl(root));  // the other intermediates went in the walk
  if (!retain_graph) t.clear();
}

}  // namespace

BackwardWatcher set_backward_watcher(BackwardWatcher watcher) {
  std::swap(watcher, backward_watcher);
  return watcher;
}

void Tensor::backward(bool retain_graph) const {
  if (!defined()) throw AutogradError("backward: the tensor is undefined (default-constructed)");
  if (numel() != 1)
    throw ShapeError("backward: " + label() + " is not a scalar; backward() without a gradient works on a " +
                     "one-element tensor only. Pass grad_output with shape " + shape_str(shape()) +
                     " (e.g. ones for a sum)");
  backward_pass(*this, xt::ones<double>(impl_->value.shape()), retain_graph);
}

void Tensor::backward(const Array& grad_output, bool retain_graph) const {
  backward_pass(*this, grad_output, retain_graph);
}

}  // namespace tapegrad
