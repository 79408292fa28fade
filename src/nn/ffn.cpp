#include "tapegrad/nn/ffn.hpp"


namespace tapegrad::nn {

FFN::FFN(std::size_t d_, std::size_t hidden_, const std::string& activation_, Generator& gen)
    : Module("FFN"), d(d_), hidden(hidden_ ? hidden_ : 4 * d_), activation(parse_activation("FFN", activation_)) {
  fc1 = register_module("fc1", std::make_shared<Linear>(d, hidden, true, gen));  // up-projection d → hidden
  fc2 = register_module("fc2", std::make_shared<Linear>(hidden, d, true, gen));  // down-projection hidden → d
}

// One fused op (one tape entry) with fc1's and fc2's parameters; composed::feed_forward
// is the same computation as fc1, activation, fc2 (three entries).
Tensor FFN::forward(const Tensor& x) {
  if (is_composed()) return composed::feed_forward(x, fc1->weight, fc1->bias, fc2->weight, fc2->bias, activation);
  return feed_forward(x, fc1->weight, fc1->bias, fc2->weight, fc2->bias, activation);
}

std::string FFN::extra_repr() const {
  return "d=" + std::to_string(d) + ", hidden=" + std::to_string(hidden) + ", activation=" + tapegrad::to_string(activation);
}

}  // namespace tapegrad::nn
