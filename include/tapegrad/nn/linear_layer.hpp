#pragma once
// nn::Linear: y = x Wᵀ + b, W of shape (out_features, in_features), PyTorch's default init.

#include "tapegrad/nn/module.hpp"
#include "tapegrad/autograd/random.hpp"

namespace tapegrad::nn {

class Linear : public Module {
 public:
  Linear(std::size_t in_features, std::size_t out_features, bool bias = true,
         Generator& gen = default_generator());
  Tensor forward(const Tensor& x) override;

  std::size_t in_features, out_features;
  Tensor weight;  // (out_features, in_features)
  Tensor bias;    // (out_features), or undefined

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
