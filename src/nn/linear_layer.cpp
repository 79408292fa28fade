#include "tapegrad/nn/linear_layer.hpp"

#include "tapegrad/ops/linear.hpp"
#include "tapegrad/nn/init.hpp"

namespace tapegrad::nn {

Linear::Linear(std::size_t in, std::size_t out, bool has_bias, Generator& gen)
    : Module("Linear"), in_features(in), out_features(out) {
  if (in == 0 || out == 0)
    throw ShapeError("Linear: in_features and out_features must be positive, got " + std::to_string(in) + " and " +
                     std::to_string(out));
  weight = register_parameter("weight", zeros({out, in}));
  if (has_bias) bias = register_parameter("bias", zeros({out}));
  init::linear_default_(weight, bias, gen);
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "true" : "false");
}

}  // namespace tapegrad::nn
