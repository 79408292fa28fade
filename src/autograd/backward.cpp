// backward(): walk the tape in reverse, calling each entry's backward.
#include "tapegrad/autograd/tape.hpp"

#include "tapegrad/autograd/anomaly.hpp"

#include <xtensor/xbuilder.hpp>

namespace tapegrad {

namespace {

void check_not_modified(const TapeEntry& e, std::size_t index) {
  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    const TensorImpl& in = *e.inputs[k].impl_;
    if (in.version != e.input_versions[k])
      throw AutogradError("backward: input " + std::to_string(k) + " " + e.inputs[k].label() + " of tape entry " +
                          std::to_string(index) + " '" + e.op + "' was modified in place after the op was recorded " +
                          "(version " + std::to_string(e.input_versions[k]) + " then, " + std::to_string(in.version) +
                          " now); its gradient would be wrong. Do in-place updates after backward() or under no_grad on fresh values");
  }
}

// Intermediate gradients are working storage of one backward pass. A retained
// one (retain_grad()) shows the gradient of the latest pass.
void free_intermediate_grads(Tape& t, bool keep_retained) {
  for (TapeEntry& e : t.entries) {
    TensorImpl& out = *e.output.impl_;
    if (keep_retained && out.retains_grad) continue;
    out.grad = Array();
    out.has_grad = false;
  }
}

void run_backward(const Tensor& root, const Array& seed, bool retain_graph) {
  if (!root.defined()) throw AutogradError("backward: the tensor is undefined (default-constructed)");
  const TensorImpl& r = *root.impl_;
  if (!r.requires_grad)
    throw AutogradError("backward: " + root.label() + " does not require grad: none of the tensors it was computed " +
                        "from requires grad, or it was computed under no_grad");
  if (!std::equal(seed.shape().begin(), seed.shape().end(), r.value.shape().begin(), r.value.shape().end()))
    throw ShapeError("backward: grad_output has shape " + shape_str(seed.shape()) + " but " + root.label() +
                     " has shape " + shape_str(r.value.shape()) + "; they must be equal");

  if (r.tape_index < 0) {  // a leaf: its gradient is the seed itself
    root.accumulate_grad(seed);
    return;
  }
  Tape& t = tape();
  if (r.graph_released || r.tape_generation != t.generation)
    throw AutogradError("backward: the graph of " + root.label() + " (output of '" + r.made_by +
                        "') was already released by an earlier backward() or tape().clear(); pass " +
                        "retain_graph=true to the first backward() to call backward() twice");

  free_intermediate_grads(t, /*keep_retained=*/false);
  // The seed becomes the root's gradient (visible in gdb as grad=1 for a scalar loss);
  // the walk then starts at the root's own entry.
  root.accumulate_grad(seed);
  for (long i = r.tape_index; i >= 0; --i) {
    const TapeEntry& e = t.entries[static_cast<std::size_t>(i)];
    if (!e.output.impl_->has_grad) continue;  // not on a path to the root
    const Array& grad_output = e.output.impl_->grad;
    check_not_modified(e, static_cast<std::size_t>(i));
    if (is_anomaly_enabled())
      run_backward_checked(e, grad_output, static_cast<std::size_t>(i));  // throws at the first NaN/Inf
    else
      e.backward(grad_output, e);
  }
  free_intermediate_grads(t, /*keep_retained=*/true);
  if (!retain_graph) t.clear();
}

}  // namespace

void Tensor::backward(bool retain_graph) const {
  if (!defined()) throw AutogradError("backward: the tensor is undefined (default-constructed)");
  if (numel() != 1)
    throw ShapeError("backward: " + label() + " is not a scalar; backward() without a gradient works on a " +
                     "one-element tensor only. Pass grad_output with shape " + shape_str(shape()) +
                     " (e.g. ones for a sum)");
  run_backward(*this, xt::ones<double>(impl_->value.shape()), retain_graph);
}

void Tensor::backward(const Array& grad_output, bool retain_graph) const {
  run_backward(*this, grad_output, retain_graph);
}

}  // namespace tapegrad
