#pragma once
// The position-wise feed-forward network of a Transformer block as one op:
//   y = act(x W1ᵀ + b1) W2ᵀ + b2
// with its backward written out, like layer_norm. Same values and gradients as
// linear → relu/gelu/silu → linear (composed::feed_forward), in one tape entry and with
// less memory: the activation is applied in place and, for ReLU, only its output is kept.

#include <string>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/activation.hpp"  // Activation, parse_activation

namespace tapegrad {

// x (..., in), w1 (hidden, in), b1 (hidden), w2 (out, hidden), b2 (out), as nn.Linear's
// weight and bias; either bias may be undefined. Activation::swiglu is refused (an Error): the gated
// FFN has a third weight, see nn::FFN.
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation = Activation::relu);
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation);

namespace composed {
// The same, composed from linear, relu / gelu and linear: three tape entries. Tests check the fused op against it.
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation = Activation::relu);
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation);
}  // namespace composed

}  // namespace tapegrad
