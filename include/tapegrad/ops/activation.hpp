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

}  // namespace tapegrad
