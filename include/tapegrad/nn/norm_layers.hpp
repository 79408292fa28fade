#pragma once
// Normalization modules: LayerNorm, RMSNorm, BatchNorm1d (features in the last axis).

#include <memory>
#include <optional>
#include <string>

#include "tapegrad/nn/module.hpp"

namespace tapegrad::nn {

// Normalises over the trailing `normalized_shape` dims; γ = 1, β = 0 at init.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true);
  explicit LayerNorm(std::size_t features, double eps = 1e-5, bool elementwise_affine = true, bool bias = true)
      : LayerNorm(Shape{features}, eps, elementwise_affine, bias) {}
  Tensor forward(const Tensor& x) override;

  Shape normalized_shape;
  double eps;
  Tensor weight, bias;  // undefined without elementwise_affine

 protected:
  std::string extra_repr() const override;
};

// y = x / sqrt(mean(x²) + eps) ⊙ γ; eps defaults to the machine epsilon, as torch.nn.RMSNorm.
class RMSNorm : public Module {
 public:
  explicit RMSNorm(Shape normalized_shape, std::optional<double> eps = std::nullopt, bool elementwise_affine = true);
  explicit RMSNorm(std::size_t features, std::optional<double> eps = std::nullopt, bool elementwise_affine = true)
      : RMSNorm(Shape{features}, eps, elementwise_affine) {}
  Tensor forward(const Tensor& x) override;

  Shape normalized_shape;
  std::optional<double> eps;
  Tensor weight;

 protected:
  std::string extra_repr() const override;
};

// BatchNorm over (N, C) or (B, S, C) with the features LAST (PyTorch's BatchNorm1d wants (N, C, L);
// a (B, S, C) here equals PyTorch's on x.permute(0, 2, 1)).
// Buffers: running_mean = 0, running_var = 1 at construction, so eval() before any training batch is
// defined: y = x / sqrt(1 + eps) ⊙ γ + β (as PyTorch). num_batches_tracked counts training batches.
class BatchNorm1d : public Module {
 public:
  explicit BatchNorm1d(std::size_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true);
  Tensor forward(const Tensor& x) override;

  std::size_t num_features;
  double eps, momentum;
  Tensor weight, bias;                  // undefined without affine
  Tensor running_mean, running_var;     // undefined without track_running_stats
  Tensor num_batches_tracked;

 protected:
  std::string extra_repr() const override;
};

// The norm a residual stack asks for by name: "layer" → LayerNorm(features, eps), "rms" → RMSNorm(features,
// eps), "batch" → BatchNorm1d(features, eps). Throws tapegrad::Error naming the valid kinds otherwise.
std::shared_ptr<Module> make_norm(const std::string& kind, std::size_t features, double eps);

}  // namespace tapegrad::nn
