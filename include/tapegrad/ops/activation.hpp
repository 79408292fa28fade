#pragma once
// Nonlinearities, PyTorch names and defaults.

#include <string>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor relu(const Tensor& x);
// approximate = "none" (exact, with erf) or "tanh", as torch.nn.functional.gelu.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);

// ---- an activation by name: the FFN's (feed_forward, nn::FFN) ----
// "relu", "gelu" (exact, erf) and "gelu_tanh" (the tanh approximation).
enum class Activation { relu, gelu, gelu_tanh };

// The one parser of activation names (gelu's `approximate` is read by it too): throws
// Error("<who>: activation must be \"relu\", \"gelu\" or \"gelu_tanh\", got ...") for an unknown one.
Activation parse_activation(const char* who, const std::string& name);
std::string to_string(Activation activation);  // its name: "relu", "gelu", "gelu_tanh"
// relu(x), gelu(x) or gelu(x, "tanh"), recorded on the tape as that op.
Tensor apply_activation(const Tensor& x, Activation activation);

// ---- backward rules (the math is above each one in activation.cpp) ----
// Each adds dL/dx to x's gradient, given dy = dL/dy (y is the op's output).
// (relu_backward's loop is kernels::relu_backward, shared with the fused FFN.)
void relu_backward(const Array& dy, const Tensor& x);
// form: Activation::gelu (approximate="none") or Activation::gelu_tanh (approximate="tanh").
void gelu_backward(const Array& dy, const Tensor& x, Activation form);
void tanh_backward(const Array& dy, const Tensor& x, const Array& y);
void sigmoid_backward(const Array& dy, const Tensor& x, const Array& y);

}  // namespace tapegrad
