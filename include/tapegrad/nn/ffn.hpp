#pragma once
// The position-wise feed-forward network of a Transformer block:
// up-projection, activation, down-projection:  y = fc2(act(fc1(x))),
// computed by the fused op feed_forward (ops/feed_forward.hpp) in one tape entry, or
// after use_composed() by linear, activation, linear (three entries).
//
// activation "swiglu" makes it LLaMA's gated MLP (Shazeer 2020, "GLU Variants Improve Transformer"):
//   y = down_proj(silu(gate_proj(x)) ⊙ up_proj(x)) = (silu(x W1ᵀ) ⊙ (x W3ᵀ)) W2ᵀ,   no biases.
// Its three Linear children are named as Hugging Face's LlamaMLP (gate_proj = W1, up_proj = W3,
// down_proj = W2 in Meta's code), so a state_dict copies in by name; fc1/fc2 are then null (and
// gate_proj/up_proj/down_proj are null for the other activations). It is composed from linear,
// swiglu and linear (four tape entries) whether or not use_composed() was called.

#include <memory>
#include <optional>
#include <string>

#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/ops/feed_forward.hpp"

namespace tapegrad::nn {

// LLaMA's hidden width for a SwiGLU FFN, as Meta's llama/model.py FeedForward: 2/3 of 4·d (the gate's
// third matrix keeps the parameters near a 4·d two-matrix FFN's), times ffn_dim_multiplier if given, each
// step truncated to an integer as int() does, then rounded up to a multiple of multiple_of:
//   h = int(2·4d / 3);  h = int(m·h) if m given;  multiple_of · ceil(h / multiple_of).
// d = 4096, multiple_of = 256 -> 11008 (LLaMA-7B). For tiny models pass a small multiple_of (nn::FFN uses 8).
std::size_t llama_hidden_size(std::size_t d, std::size_t multiple_of = 256,
                              std::optional<double> ffn_dim_multiplier = std::nullopt);

class FFN : public Module {
 public:
  // activation: "relu", "gelu" (exact), "gelu_tanh", "silu" or "swiglu" (the gated FFN above).
  // hidden = 0 means 4·d, the Transformer's default; with "swiglu", llama_hidden_size(d, 8).
  FFN(std::size_t d, std::size_t hidden = 0, const std::string& activation = "relu",
      Generator& gen = default_generator());
  Tensor forward(const Tensor& x) override;

  std::size_t d, hidden;
  Activation activation;
  std::shared_ptr<Linear> fc1, fc2;                       // relu, gelu, gelu_tanh, silu
  std::shared_ptr<Linear> gate_proj, up_proj, down_proj;  // swiglu

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
