#pragma once
// The position-wise feed-forward network of a Transformer block:
// up-projection, activation, down-projection:  y = fc2(act(fc1(x))),
// computed by the fused op feed_forward (ops/feed_forward.hpp) in one tape entry, or
// after use_composed() by linear, activation, linear (three entries).

#include <memory>
#include <string>

#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/ops/feed_forward.hpp"

namespace tapegrad::nn {

class FFN : public Module {
 public:
  // hidden = 0 means 4·d, the Transformer's default. activation: "relu", "gelu" (exact) or "gelu_tanh".
  FFN(std::size_t d, std::size_t hidden = 0, const std::string& activation = "relu",
      Generator& gen = default_generator());
  Tensor forward(const Tensor& x) override;

  std::size_t d, hidden;
  Activation activation;
  std::shared_ptr<Linear> fc1, fc2;

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
