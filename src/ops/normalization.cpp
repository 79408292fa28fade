// layer_norm, rms_norm, batch_norm: argument checks, then the shared kernel
// (normalize_kernel.hpp) for forward and backward.
#include "tapegrad/ops/normalization.hpp"

#include <limits>

#include <xtensor/xbuilder.hpp>

#include "normalize_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

using kernels::GroupStats;
using kernels::Groups;
using kernels::Layout;
using kernels::Statistics;

namespace {

const double* data_or_null(const Tensor& t) { return t.defined() ? t.value().data() : nullptr; }

void check_param_shape(const char* op, const char* what, const Tensor& p, const Shape& expected, const Tensor& x) {
  if (p.defined() && p.shape() != expected)
    throw ShapeError(std::string(op) + ": " + what + " has shape " + shape_str(p.shape()) + " but input " + x.label() +
                     " needs " + shape_str(expected));
}

// The forward values of one normalization, the statistics it used and where they came from.
struct Normalized {
  Array y;
  std::vector<GroupStats> stats;
  Statistics mode;
};

// y = x̂ ⊙ γ + β over the groups of `layout`. `stats` is used as given when the
// statistics are constant (BatchNorm eval), and computed from x otherwise.
Normalized normalize_values(const Tensor& x, const Tensor& weight, const Tensor& bias, const Layout& layout,
                            Statistics mode, double eps, std::vector<GroupStats> stats = {}) {
  Normalized out{Array::from_shape(x.shape()), std::move(stats), mode};
  kernels::normalize_forward(x.value().data(), out.y.data(), layout, mode, eps, out.stats, data_or_null(weight),
                             data_or_null(bias));
  return out;
}

// Records a normalization computed by normalize_values; backward by the shared kernel.
Tensor record_normalize(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias, const Layout& layout,
                        Normalized forward) {
  // Tape inputs: x, then weight and bias when given.
  std::vector<Tensor> inputs{x};
  const bool has_w = weight.defined(), has_b = bias.defined();
  if (has_w) inputs.push_back(weight);
  if (has_b) inputs.push_back(bias);

  return record(op, std::move(inputs), std::move(forward.y),
                [layout, stats = std::move(forward.stats), mode = forward.mode, has_w, has_b](const Array& dy,
                                                                                             const TapeEntry& e) {
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
                  if (want_dx) x.accumulate_grad(std::move(dx));
                  if (want_dw) w->accumulate_grad(std::move(dw));
                  if (want_db) b->accumulate_grad(std::move(db));
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
// forward:  y = (x − μ)·rstd ⊙ γ + β,  μ and σ² (biased) over the trailing dims, rstd = 1/sqrt(σ² + ε)
// backward: dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂)), g = dy ⊙ γ;  dγ = Σ_rows dy ⊙ x̂;  dβ = Σ_rows dy
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  const Layout layout = trailing_layout("layer_norm", x, normalized_shape);
  check_param_shape("layer_norm", "weight", weight, normalized_shape, x);
  check_param_shape("layer_norm", "bias", bias, normalized_shape, x);
  return record_normalize("layer_norm", x, weight, bias, layout,
                          normalize_values(x, weight, bias, layout, Statistics::centered, eps));
}

// ---- RMSNorm ----
// forward:  y = x·r ⊙ γ,  r = 1/sqrt(mean(x²) + ε)
// backward: dx = r·(g − x̂·mean(g ⊙ x̂)), g = dy ⊙ γ, x̂ = x·r;  dγ = Σ_rows dy ⊙ x̂
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  const Layout layout = trailing_layout("rms_norm", x, normalized_shape);
  check_param_shape("rms_norm", "weight", weight, normalized_shape, x);
  const double e = eps.value_or(std::numeric_limits<double>::epsilon());
  return record_normalize("rms_norm", x, weight, Tensor{}, layout,
                          normalize_values(x, weight, Tensor{}, layout, Statistics::uncentered, e));
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
    return record_normalize("batch_norm", x, weight, bias, layout,
                            normalize_values(x, weight, bias, layout, Statistics::constant, eps, std::move(stats)));
  }

  if (layout.n < 2)
    throw ShapeError("batch_norm: expected more than 1 value per feature when training, got input " + x.label() +
                     " (" + std::to_string(layout.n) + " value per feature); the batch variance of one value is 0");
  Normalized forward = normalize_values(x, weight, bias, layout, Statistics::centered, eps);
  if (running_mean.defined()) {
    std::vector<double> mean(layout.groups), var(layout.groups);
    for (std::size_t c = 0; c < layout.groups; ++c) mean[c] = forward.stats[c].mean, var[c] = forward.stats[c].var;
    // Buffers, not part of the graph: updated in place.
    Tensor rm = running_mean, rv = running_var;
    kernels::update_running_stats(rm.mutable_value().data(), rv.mutable_value().data(), mean.data(), var.data(),
                                  layout.groups, layout.n, momentum);
  }
  return record_normalize("batch_norm", x, weight, bias, layout, std::move(forward));
}

}  // namespace tapegrad
