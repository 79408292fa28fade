#include "tapegrad/nn/ffn.hpp"

#include "tapegrad/ops/activation.hpp"

namespace tapegrad::nn {

FFN::FFN(std::size_t d_, std::size_t hidden_, const std::string& activation_, Generator& gen)
    : Module("FFN"), d(d_), hidden(hidden_ ? hidden_ : 4 * d_), activation(activation_) {
  if (activation != "relu" && activation != "gelu" && activation != "gelu_tanh")
    throw Error("FFN: activation must be \"relu\", \"gelu\" or \"gelu_tanh\", got \"" + activation + "\"");
  fc1 = register_module("fc1", std::make_shared<Linear>(d, hidden, true, gen));  // up-projection d → hidden
  fc2 = register_module("fc2", std::make_shared<Linear>(hidden, d, true, gen));  // down-projection hidden → d
}

Tensor FFN::forward(const Tensor& x) {
  Tensor h = (*fc1)(x);
  if (activation == "relu") h = relu(h);
  else h = gelu(h, activation == "gelu" ? "none" : "tanh");
  return (*fc2)(h);
}

std::string FFN::extra_repr() const {
  return "d=" + std::to_string(d) + ", hidden=" + std::to_string(hidden) + ", activation=" + activation;
}

}  // namespace tapegrad::nn
