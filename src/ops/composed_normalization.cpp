// LayerNorm, RMSNorm and BatchNorm composed from primitive ops (mean, sub, mul, sqrt, div):
// every step is its own entry on the tape (`p $tape()` in gdb, tape_table()), and the
// backward comes from autograd alone. This is the fused op of normalization.cpp spelled
// out: model.use_composed() runs a model's norms this way, and the tests check the fused
// kernels against it. The arguments are checked by the fused ops, not here.
#include <limits>

#include "normalize_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/normalization.hpp"
#include "tapegrad/ops/reduce.hpp"

namespace tapegrad::composed {

namespace {

Axes last_axes(std::size_t count) {
  Axes axes;
  for (long a = -static_cast<long>(count); a < 0; ++a) axes.push_back(a);
  return axes;
}

Tensor affine(Tensor y, const Tensor& weight, const Tensor& bias) {
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

}  // namespace

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const Axes axes = last_axes(normalized_shape.size());
  Tensor centred = x - mean(x, axes, true);
  Tensor var = mean(centred * centred, axes, true);  // two-pass: deviations from the mean first
  return affine(centred / sqrt(var + eps), weight, bias);
}

Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  const Axes axes = last_axes(normalized_shape.size());
  const double e = eps.value_or(std::numeric_limits<double>::epsilon());
  return affine(x / sqrt(mean(x * x, axes, true) + e), weight, Tensor{});
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  if (!training) return affine((x - running_mean) / sqrt(running_var + eps), weight, bias);
  Axes batch_axes;
  for (long a = 0; a + 1 < static_cast<long>(x.dim()); ++a) batch_axes.push_back(a);
  Tensor mu = mean(x, batch_axes, true);
  Tensor centred = x - mu;
  Tensor var = mean(centred * centred, batch_axes, true);
  if (running_mean.defined()) {
    // Off the tape on purpose: the running statistics are buffers, not part of the graph
    // (PyTorch also updates them in place, outside autograd), so there is nothing to show
    // on the tape. They are updated by the fused op's own helper, so that the formula
    // (momentum, the unbiased variance) is written once and both ops update them alike.
    Tensor rm = running_mean, rv = running_var;
    kernels::update_running_stats(rm.mutable_value().data(), rv.mutable_value().data(), mu.value().data(),
                                  var.value().data(), x.shape().back(), x.numel() / x.shape().back(), momentum);
  }
  return affine(centred / sqrt(var + eps), weight, bias);
}

}  // namespace tapegrad::composed
