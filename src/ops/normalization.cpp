// layer_norm, rms_norm, batch_norm: argument checks, then the shared kernel
// (normalize_kernel.hpp) for forward and backward.
#include "tapegrad/ops/normalization.hpp"

#include <limits>

#include <xtensor/xbuilder.hpp>

#include "normalize_kernel.hpp"
#include "accumulate.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

using kernels::GroupStats;
using kernels::Layout;
using kernels::StatsGrad;

namespace {

const double* data_or_null(const Tensor& t) { return t.defined() ? t.value().data() : nullptr; }

void check_param_shape(const char* op, const char* what, const Tensor& p, const Shape& expected, const Tensor& x) {
  if (p.defined() && p.shape() != expected)
    throw ShapeError(std::string(op) + ": " + what + " has shape " + shape_str(p.shape()) + " but input " + x.label() +
                     " needs " + shape_str(expected));
}

// Records one normalization: y = x̂ ⊙ γ + β over the groups of `layout`, with
// the given statistics; backward by the shared kernel.
Tensor normalize_op(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias, const Layout& layout,
                    std::vector<GroupStats> stats, StatsGrad mode) {
  Array y = Array::from_shape(x.shape());
  kernels::normalize_forward(x.value().data(), y.data(), layout, stats, data_or_null(weight), data_or_null(bias));

  // Tape inputs: x, then weight and bias when given.
  std::vector<Tensor> inputs{x};
  const bool has_w = weight.defined(), has_b = bias.defined();
  if (has_w) inputs.push_back(weight);
  if (has_b) inputs.push_back(bias);

  return record(op, std::move(inputs), std::move(y),
                [layout, stats = std::move(stats), mode, has_w, has_b](const Array& dy, const TapeEntry& e) {
                  const Tensor& x = e.inputs[0];
                  const Tensor* w = has_w ? &e.inputs[1] : nullptr;
                  const Tensor* b = has_b ? &e.inputs[has_w ? 2 : 1] : nullptr;
                  // Flags, not dx.size(): a default-constructed xarray is 0-d with size 1, not empty.
                  const bool want_dx = x.requires_grad(), want_dw = w && w->requires_grad(),
                             want_db = b && b->requires_grad();
                  Array dx = want_dx ? Array::from_shape(x.shape()) : Array();
                  Array dw = want_dw ? Array(xt::zeros<double>(w->shape())) : Array();
                  Array db = want_db ? Array(xt::zeros<double>(b->shape())) : Array();
                  kernels::normalize_backward(x.value().data(), dy.data(), layout, stats,
                                              w ? w->value().data() : nullptr, mode, want_dx ? dx.data() : nullptr,
                                              want_dw ? dw.data() : nullptr, want_db ? db.data() : nullptr);
                  if (want_dx) accumulate_grad(x, std::move(dx));
                  if (want_dw) accumulate_grad(*w, std::move(dw));
                  if (want_db) accumulate_grad(*b, std::move(db));
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
  return Layout{x.numel() / n, n, n, 1, 0, 1};
}

// BatchNorm: features in the last axis, one group per feature column.
Layout column_layout(const char* op, const Tensor& x) {
  if (x.dim() < 2)
    throw ShapeError(std::string(op) + ": expected an input of shape (N, C) or (B, S, C) with features last, got " +
                     x.label());
  const std::size_t C = x.shape().back();
  return Layout{C, x.numel() / std::max<std::size_t>(C, 1), 1, C, 1, 0};
}

}  // namespace

// ---- LayerNorm ----
// forward:  y = (x − μ)·rstd ⊙ γ + β,  μ and σ² (biased) over the trailing dims, rstd = 1/sqrt(σ² + ε)
// backward: dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂)), g = dy ⊙ γ;  dγ = Σ_rows dy ⊙ x̂;  dβ = Σ_rows dy
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  const Layout layout = trailing_layout("layer_norm", x, normalized_shape);
  check_param_shape("layer_norm", "weight", weight, normalized_shape, x);
  check_param_shape("layer_norm", "bias", bias, normalized_shape, x);
  auto stats = kernels::all_group_stats(x.value().data(), layout, /*centered=*/true, eps);
  return normalize_op("layer_norm", x, weight, bias, layout, std::move(stats), StatsGrad::centered);
}

// ---- RMSNorm ----
// forward:  y = x·r ⊙ γ,  r = 1/sqrt(mean(x²) + ε)
// backward: dx = r·(g − x̂·mean(g ⊙ x̂)), g = dy ⊙ γ, x̂ = x·r;  dγ = Σ_rows dy ⊙ x̂
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  const Layout layout = trailing_layout("rms_norm", x, normalized_shape);
  check_param_shape("rms_norm", "weight", weight, normalized_shape, x);
  const double e = eps.value_or(std::numeric_limits<double>::epsilon());
  auto stats = kernels::all_group_stats(x.value().data(), layout, /*centered=*/false, e);
  return normalize_op("rms_norm", x, weight, Tensor{}, layout, std::move(stats), StatsGrad::uncentered);
}

// ---- BatchNorm (features last) ----
// training: the LayerNorm formulas with the means taken over the batch per feature;
//           running = (1 − momentum)·running + momentum·batch, with the unbiased variance for running_var.
// eval:     y = (x − running_mean)/sqrt(running_var + ε) ⊙ γ + β; the statistics are constants, dx = rstd·g.
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
    std::vector<GroupStats> stats(layout.groups);
    for (std::size_t c = 0; c < layout.groups; ++c) {
      const double var = running_var.value()(c);
      stats[c] = {running_mean.value()(c), var, 1.0 / std::sqrt(var + eps)};
    }
    return normalize_op("batch_norm", x, weight, bias, layout, std::move(stats), StatsGrad::constant);
  }

  if (layout.n < 2)
    throw ShapeError("batch_norm: expected more than 1 value per feature when training, got input " + x.label() +
                     " (" + std::to_string(layout.n) + " value per feature); the batch variance of one value is 0");
  auto stats = kernels::all_group_stats(x.value().data(), layout, /*centered=*/true, eps);
  if (running_mean.defined()) {
    std::vector<double> mean(layout.groups), var(layout.groups);
    for (std::size_t c = 0; c < layout.groups; ++c) mean[c] = stats[c].mean, var[c] = stats[c].var;
    // Buffers, not part of the graph: updated in place.
    Tensor rm = running_mean, rv = running_var;
    kernels::update_running_stats(rm.mutable_value().data(), rv.mutable_value().data(), mean.data(), var.data(),
                                  layout.groups, layout.n, momentum);
  }
  return normalize_op("batch_norm", x, weight, bias, layout, std::move(stats), StatsGrad::centered);
}

}  // namespace tapegrad
