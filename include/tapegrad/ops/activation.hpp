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

// ---- backward rules (the math is above each one in activation.cpp) ----
// Each adds dL/dx to x's gradient, given dy = dL/dy (y is the op's output).
// (relu_backward's loop is kernels::relu_backward, shared with the fused FFN.)
void relu_backward(const Array& dy, const Tensor& x);
void gelu_backward(const Array& dy, const Tensor& x, bool tanh_form);  // tanh_form: approximate="tanh"
void tanh_backward(const Array& dy, const Tensor& x, const Array& y);
void sigmoid_backward(const Array& dy, const Tensor& x, const Array& y);

}  // namespace tapegrad
