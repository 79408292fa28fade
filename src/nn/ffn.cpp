#include "tapegrad/nn/ffn.hpp"


namespace tapegrad::nn {

std::size_t llama_hidden_size(std::size_t d, std::size_t multiple_of, std::optional<double> ffn_dim_multiplier) {
  if (multiple_of == 0) throw Error("llama_hidden_size: multiple_of must be at least 1, got 0 (d = " + std::to_string(d) + ")");
  std::size_t h = 2 * (4 * d) / 3;  // int(2 * hidden_dim / 3), hidden_dim = 4·d
  if (ffn_dim_multiplier) {
    if (!(*ffn_dim_multiplier > 0.0))
      throw Error("llama_hidden_size: ffn_dim_multiplier must be > 0, got " + std::to_string(*ffn_dim_multiplier));
    h = static_cast<std::size_t>(*ffn_dim_multiplier * static_cast<double>(h));  // int() truncates
  }
  return multiple_of * ((h + multiple_of - 1) / multiple_of);
}

FFN::FFN(std::size_t d_, std::size_t hidden_, const std::string& activation_, Generator& gen)
    : Module("FFN"), d(d_), hidden(hidden_), activation(parse_activation("FFN", activation_)) {
  if (activation == Activation::swiglu) {
    if (hidden == 0) hidden = llama_hidden_size(d, 8);
    // Registered in HF LlamaMLP's order; no biases, as LLaMA.
    gate_proj = register_module("gate_proj", std::make_shared<Linear>(d, hidden, false, gen));  // W1: d → hidden
    up_proj = register_module("up_proj", std::make_shared<Linear>(d, hidden, false, gen));      // W3: d → hidden
    down_proj = register_module("down_proj", std::make_shared<Linear>(hidden, d, false, gen));  // W2: hidden → d
    return;
  }
  if (hidden == 0) hidden = 4 * d;
  fc1 = register_module("fc1", std::make_shared<Linear>(d, hidden, true, gen));  // up-projection d → hidden
  fc2 = register_module("fc2", std::make_shared<Linear>(hidden, d, true, gen));  // down-projection hidden → d
}

// One fused op (one tape entry) with fc1's and fc2's parameters; composed::feed_forward
// is the same computation as fc1, activation, fc2 (three entries).
// SwiGLU: down_proj(swiglu(gate_proj(x), up_proj(x))), always composed (no fused op for it).
Tensor FFN::forward(const Tensor& x) {
  if (activation == Activation::swiglu)
    return down_proj->forward(swiglu(gate_proj->forward(x), up_proj->forward(x)));
  if (is_composed()) return composed::feed_forward(x, fc1->weight, fc1->bias, fc2->weight, fc2->bias, activation);
  return feed_forward(x, fc1->weight, fc1->bias, fc2->weight, fc2->bias, activation);
}

std::string FFN::extra_repr() const {
  return "d=" + std::to_string(d) + ", hidden=" + std::to_string(hidden) + ", activation=" + tapegrad::to_string(activation);
}

}  // namespace tapegrad::nn
