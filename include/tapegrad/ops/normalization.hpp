#pragma once
// Normalization layers as functions, each one tape entry with a hand-written
// backward (PyTorch's semantics and defaults), and the same ops composed from
// primitives (namespace tapegrad::composed), every step on the tape.
//
// Optional tensors (weight, bias, running statistics) are passed as an
// undefined Tensor{} when absent (PyTorch's None).
//
// Variance is computed in two passes, Σ(x − mean)² / N, never as
// E[x²] − E[x]²: that one-pass formula cancels catastrophically when the mean
// is large against the spread (see tests/ops/test_variance_numerics.cpp).

#include <optional>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// y = (x − mean) / sqrt(var + eps) · weight + bias, statistics over the
// trailing `normalized_shape` dimensions of x (biased variance).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);

// y = x / sqrt(mean(x²) + eps) · weight over the trailing dimensions.
// eps defaults, as in torch.nn.RMSNorm, to the machine epsilon of double.
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt);

// Features in the LAST axis, statistics over all other axes (x of shape (N, C) or (B, S, C)).
// training: normalise with the biased batch variance and, if running_mean / running_var are given,
//   update them in place: running = (1 − momentum)·running + momentum·batch (unbiased variance for
//   running_var). Needs more than one value per feature, as PyTorch.
// eval: normalise with running_mean / running_var, which must then be given.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight = {},
                  const Tensor& bias = {}, bool training = false, double momentum = 0.1, double eps = 1e-5);

namespace composed {
// The same three ops built from primitive ops (mean, sub, mul, sqrt, div, ...): every
// step is its own tape entry and the backward comes from autograd alone (slower, longer
// tapes). model.use_composed() runs a model's norms this way; the tests check the fused
// ops against these. BatchNorm's running statistics are updated in place, off the tape,
// as in the fused op.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt);
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight = {},
                  const Tensor& bias = {}, bool training = false, double momentum = 0.1, double eps = 1e-5);
}  // namespace composed

}  // namespace tapegrad
