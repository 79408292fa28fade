#pragma once
// The affine map of nn.Linear.

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// y = x Wᵀ + b, x of shape (..., in), W of shape (out, in) as in PyTorch, b of shape (out) or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});

}  // namespace tapegrad
