#include "tapegrad/nn/norm_layers.hpp"

#include <sstream>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad::nn {

LayerNorm::LayerNorm(Shape shape, double eps_, bool elementwise_affine, bool has_bias)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  if (elementwise_affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    if (has_bias) bias = register_parameter("bias", zeros(normalized_shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  if (is_composed()) return composed::layer_norm(x, normalized_shape, weight, bias, eps);
  return layer_norm(x, normalized_shape, weight, bias, eps);
}

std::string LayerNorm::extra_repr() const {
  std::ostringstream out;
  out << shape_str(normalized_shape) << ", eps=" << eps << ", elementwise_affine=" << (weight.defined() ? "true" : "false");
  return out.str();
}

RMSNorm::RMSNorm(Shape shape, std::optional<double> eps_, bool elementwise_affine)
    : Module("RMSNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  if (elementwise_affine) weight = register_parameter("weight", ones(normalized_shape));
}

Tensor RMSNorm::forward(const Tensor& x) {
  if (is_composed()) return composed::rms_norm(x, normalized_shape, weight, eps);
  return rms_norm(x, normalized_shape, weight, eps);
}

std::string RMSNorm::extra_repr() const {
  std::ostringstream out;
  out << shape_str(normalized_shape) << ", eps=";
  if (eps) out << *eps; else out << "None";
  return out.str();
}

BatchNorm1d::BatchNorm1d(std::size_t features, double eps_, double momentum_, bool affine, bool track_running_stats)
    : Module("BatchNorm1d"), num_features(features), eps(eps_), momentum(momentum_) {
  if (affine) {
    weight = register_parameter("weight", ones({features}));
    bias = register_parameter("bias", zeros({features}));
  }
  if (track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({features}));
    running_var = register_buffer("running_var", ones({features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}));
  }
}

Tensor BatchNorm1d::forward(const Tensor& x) {
  // Without running statistics, eval mode also uses the batch's own (PyTorch's rule).
  const bool use_batch_stats = is_training() || !running_mean.defined();
  if (is_training() && running_mean.defined()) num_batches_tracked.mutable_value() += 1.0;
  if (is_composed())
    return composed::batch_norm(x, running_mean, running_var, weight, bias, use_batch_stats, momentum, eps);
  return batch_norm(x, running_mean, running_var, weight, bias, use_batch_stats, momentum, eps);
}

std::string BatchNorm1d::extra_repr() const {
  std::ostringstream out;
  out << num_features << ", eps=" << eps << ", momentum=" << momentum << ", affine=" << (weight.defined() ? "true" : "false");
  return out.str();
}

std::shared_ptr<Module> make_norm(const std::string& kind, std::size_t features, double eps) {
  if (kind == "layer") return std::make_shared<LayerNorm>(features, eps);
  if (kind == "rms") return std::make_shared<RMSNorm>(features, eps);
  if (kind == "batch") return std::make_shared<BatchNorm1d>(features, eps);
  throw Error("make_norm: unknown norm \"" + kind + "\"; expected one of: layer, rms, batch");
}

}  // namespace tapegrad::nn
