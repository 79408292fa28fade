// layer_norm, rms_norm, batch_norm: argument checks, then the shared kernel
// (normalize_kernel.hpp: the reference loops, or the fast ones) for forward and backward.
// Each op's named backward (layer_norm_backward, ...) sits right after its forward, with its math.
// An absent weight or bias is an undefined Tensor{}, in the forwards and the backwards alike.
#include "tapegrad/ops/normalization.hpp"

#include <limits>

#include <xtensor/xbuilder.hpp>

#include "normalize_kernel.hpp"
#include "optional_tensor.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

using kernels::GroupStats;
using kernels::Groups;
using kernels::Layout;
using kernels::Statistics;

// What a normalization saves for its backward: how x splits into groups, and each
// group's statistics (mean, var, rstd) with where they came from.
struct NormalizationSaved {
  Layout layout;
  std::vector<GroupStats> stats;
  Statistics mode;
};

// The named backward functions, each defined right after its op below.
void layer_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor& bias,
                         const NormalizationSaved& saved);
void rms_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight, const NormalizationSaved& saved);
void batch_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor& bias,
                         const NormalizationSaved& saved);

namespace {

void check_param_shape(const char* op, const char* what, const Tensor& p, const Shape& expected, const Tensor& x) {
  if (p.defined() && p.shape() != expected)
    throw ShapeError(std::string(op) + ": " + what + " has shape " + shape_str(p.shape()) + " but input " + x.label() +
                     " needs " + shape_str(expected));
}

// y = x̂ ⊙ γ + β over the groups of `saved.layout`, by the kernel. The statistics are
// computed from x into saved.stats, unless constant (BatchNorm eval: given there).
Array normalize_values(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                       NormalizationSaved& saved) {
  Array y = Array::from_shape(x.shape());
  kernels::normalize_forward(x.value().data(), y.data(), saved.layout, saved.mode, eps, saved.stats,
                             data_or_null(weight), data_or_null(bias));
  return y;
}

// A backward's dx, dγ and dβ: a fresh array for each input that wants a gradient
// (the kernel writes dx and adds to dγ and dβ), null for the others; add_to_inputs()
// hands them to the inputs' gradients.
class NormalizationGrads {
 public:
  NormalizationGrads(Tensor x, Tensor weight, Tensor bias)
      : x_(std::move(x)), weight_(std::move(weight)), bias_(std::move(bias)) {
    // Flags, not dx.size(): a default-constructed xarray is 0-d with size 1, not empty.
    if (x_.requires_grad()) dx_ = Array::from_shape(x_.shape());
    if (wants_grad(weight_)) dweight_ = xt::zeros<double>(weight_.shape());
    if (wants_grad(bias_)) dbias_ = xt::zeros<double>(bias_.shape());
  }
  double* dx() { return x_.requires_grad() ? dx_.data() : nullptr; }
  double* dweight() { return wants_grad(weight_) ? dweight_.data() : nullptr; }
  double* dbias() { return wants_grad(bias_) ? dbias_.data() : nullptr; }
  void add_to_inputs() {
    if (x_.requires_grad()) x_.accumulate_grad(std::move(dx_));
    if (wants_grad(weight_)) weight_.accumulate_grad(std::move(dweight_));
    if (wants_grad(bias_)) bias_.accumulate_grad(std::move(dbias_));
  }

 private:
  Tensor x_, weight_, bias_;
  Array dx_, dweight_, dbias_;
};

// Records a normalization: inputs x, then weight and bias when given. `backward` unpacks
// the entry and calls the op's named backward.
template <class Backward>
Tensor record_normalization(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias, Array y,
                            NormalizationSaved saved, Backward backward) {
  OpInputs inputs;
  inputs.add(x);
  const int weight_slot = inputs.add(weight), bias_slot = inputs.add(bias);
  return record(op, std::move(inputs.tensors), std::move(y),
                [backward, weight_slot, bias_slot, saved = std::move(saved)](const Array& dy, const TapeEntry& e) {
                  backward(dy, e.inputs[0], optional_input(e, weight_slot), optional_input(e, bias_slot), saved);
                });
}

// LayerNorm and RMSNorm: one group per row of the trailing `normalized_shape` dimensions.
Layout trailing_layout(const char* op, const Tensor& x, const Shape& normalized_shape) {
  const Shape xs = x.shape();
  if (normalized_shape.empty())
    throw ShapeError(std::string(op) + ": normalized_shape is empty; give at least the last dimension of " + x.label());
  const bool fits = xs.size() >= normalized_shape.size() &&
                    std::equal(normalized_shape.begin(), normalized_shape.end(), xs.end() - normalized_shape.size());
  if (!fits)
    throw ShapeError(std::string(op) + ": normalized_shape " + shape_str(normalized_shape) +
                     " does not match the trailing dimensions of input " + x.label() + "; expected an input of shape (..., " +
                     shape_str(normalized_shape).substr(1));
  std::size_t n = 1;
  for (std::size_t d : normalized_shape) n *= d;
  if (n == 0) throw ShapeError(std::string(op) + ": normalized_shape " + shape_str(normalized_shape) + " is empty");
  return Layout{Groups::rows, x.numel() / n, n};
}

// BatchNorm: features in the last axis, one group per feature column.
Layout column_layout(const char* op, const Tensor& x) {
  if (x.dim() < 2)
    throw ShapeError(std::string(op) + ": expected an input of shape (N, C) or (B, S, C) with features last, got " +
                     x.label());
  const std::size_t C = x.shape().back();
  return Layout{Groups::columns, C, x.numel() / std::max<std::size_t>(C, 1)};
}

}  // namespace

// ---- LayerNorm ----
// y = (x − μ)·rstd ⊙ γ + β,  μ and σ² (biased) over the trailing dims, rstd = 1/sqrt(σ² + ε)
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  NormalizationSaved saved{trailing_layout("layer_norm", x, normalized_shape), {}, Statistics::centered};
  check_param_shape("layer_norm", "weight", weight, normalized_shape, x);
  check_param_shape("layer_norm", "bias", bias, normalized_shape, x);
  Array y = normalize_values(x, weight, bias, eps, saved);
  return record_normalization("layer_norm", x, weight, bias, std::move(y), std::move(saved), layer_norm_backward);
}

// Per row, with x̂ = (x − μ)·rstd and g = dy ⊙ γ:
//   dβ += dy,  dγ += dy ⊙ x̂,  dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂))
// mean(g) is what μ passes back to every x, mean(g ⊙ x̂) what σ² passes back; the
// kernel's reference loops (normalize_reference.cpp) spell it out.
TAPEGRAD_BACKWARD void layer_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                           const NormalizationSaved& saved) {
  NormalizationGrads d(x, weight, bias);
  kernels::normalize_backward(x.value().data(), dy.data(), saved.layout, saved.stats, data_or_null(weight),
                              Statistics::centered, d.dx(), d.dweight(), d.dbias());
  d.add_to_inputs();
}

// ---- RMSNorm ----
// y = x·r ⊙ γ,  r = 1/sqrt(mean(x²) + ε)
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  NormalizationSaved saved{trailing_layout("rms_norm", x, normalized_shape), {}, Statistics::uncentered};
  check_param_shape("rms_norm", "weight", weight, normalized_shape, x);
  Array y = normalize_values(x, weight, Tensor{}, eps.value_or(std::numeric_limits<double>::epsilon()), saved);
  return record_normalization("rms_norm", x, weight, Tensor{}, std::move(y), std::move(saved),
                              [](const Array& dy, const Tensor& x, const Tensor& weight, const Tensor& /*no bias*/,
                                 const NormalizationSaved& saved) { rms_norm_backward(dy, x, weight, saved); });
}

// Per row, with x̂ = x·r and g = dy ⊙ γ:
//   dγ += dy ⊙ x̂,  dx = r·(g − x̂·mean(g ⊙ x̂))
// LayerNorm's without the mean: nothing was subtracted, so nothing passes back through it.
TAPEGRAD_BACKWARD void rms_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight,
                                         const NormalizationSaved& saved) {
  NormalizationGrads d(x, weight, Tensor{});
  kernels::normalize_backward(x.value().data(), dy.data(), saved.layout, saved.stats, data_or_null(weight),
                              Statistics::uncentered, d.dx(), d.dweight(), /*dbeta=*/nullptr);
  d.add_to_inputs();
}

// ---- BatchNorm (features last) ----
// training: the LayerNorm formulas with the means taken over the batch per feature;
//           running = (1 − momentum)·running + momentum·batch, with the unbiased variance for running_var.
// eval:     y = (x − running_mean)/sqrt(running_var + ε) ⊙ γ + β, the statistics constants.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  const Layout layout = column_layout("batch_norm", x);
  const Shape features{layout.groups};
  check_param_shape("batch_norm", "weight", weight, features, x);
  check_param_shape("batch_norm", "bias", bias, features, x);
  check_param_shape("batch_norm", "running_mean", running_mean, features, x);
  check_param_shape("batch_norm", "running_var", running_var, features, x);
  if (running_mean.defined() != running_var.defined())
    throw Error("batch_norm: give both running_mean and running_var, or neither");

  if (!training) {
    if (!running_mean.defined())
      throw Error("batch_norm: eval mode (training=false) normalises with running_mean and running_var, "
                  "but none were given for input " + x.label());
    NormalizationSaved saved{layout, std::vector<GroupStats>(layout.groups), Statistics::constant};
    for (std::size_t c = 0; c < layout.groups; ++c) {
      const double var = running_var.value()(c);
      saved.stats[c] = {running_mean.value()(c), var, 1.0 / std::sqrt(var + eps)};
    }
    Array y = normalize_values(x, weight, bias, eps, saved);
    return record_normalization("batch_norm", x, weight, bias, std::move(y), std::move(saved), batch_norm_backward);
  }

  if (layout.n < 2)
    throw ShapeError("batch_norm: expected more than 1 value per feature when training, got input " + x.label() +
                     " (" + std::to_string(layout.n) + " value per feature); the batch variance of one value is 0");
  NormalizationSaved saved{layout, {}, Statistics::centered};
  Array y = normalize_values(x, weight, bias, eps, saved);
  if (running_mean.defined()) {
    std::vector<double> mean(layout.groups), var(layout.groups);
    for (std::size_t c = 0; c < layout.groups; ++c) mean[c] = saved.stats[c].mean, var[c] = saved.stats[c].var;
    // Buffers, not part of the graph: updated in place.
    Tensor rm = running_mean, rv = running_var;
    kernels::update_running_stats(rm.mutable_value().data(), rv.mutable_value().data(), mean.data(), var.data(),
                                  layout.groups, layout.n, momentum);
  }
  return record_normalization("batch_norm", x, weight, bias, std::move(y), std::move(saved), batch_norm_backward);
}

// Per feature (a column), with x̂ = (x − μ)·rstd and g = dy ⊙ γ:
//   training: LayerNorm's, the means over the batch:  dβ += dy,  dγ += dy ⊙ x̂,  dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂))
//   eval:     μ and σ² are constants (the running statistics): nothing passes back through them, dx = rstd·g
TAPEGRAD_BACKWARD void batch_norm_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                           const NormalizationSaved& saved) {
  NormalizationGrads d(x, weight, bias);
  kernels::normalize_backward(x.value().data(), dy.data(), saved.layout, saved.stats, data_or_null(weight),
                              saved.mode /* centered or constant */, d.dx(), d.dweight(), d.dbias());
  d.add_to_inputs();
}

}  // namespace tapegrad
