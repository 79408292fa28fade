#pragma once
// The position-wise feed-forward network of a Transformer block as one op:
//   y = act(x W1ᵀ + b1) W2ᵀ + b2
// with its backward written out, like layer_norm. Same values and gradients as
// linear → relu/gelu → linear (composed::feed_forward), in one tape entry and with
// less memory: the activation is applied in place and, for ReLU, only its output is kept.

#include <string>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// x (..., in), w1 (hidden, in), b1 (hidden), w2 (out, hidden), b2 (out), as nn.Linear's
// weight and bias; either bias may be undefined. activation: "relu", "gelu" (exact, erf)
// or "gelu_tanh".
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation = "relu");

// Throws Error("<who>: activation must be ...") unless feed_forward takes `activation`
// (for nn::FFN, which refuses a bad name when it is built, not at its first forward).
void check_feed_forward_activation(const char* who, const std::string& activation);

namespace composed {
// The same, composed from linear, relu / gelu and linear: three tape entries. Tests check the fused op against it.
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation = "relu");
}  // namespace composed

}  // namespace tapegrad
