#pragma once
// The affine map and the residual connection, and Add & Norm built on them.

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// y = x Wᵀ + b, x of shape (..., in), W of shape (out, in) as in PyTorch, b of shape (out) or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});

// The residual connection x + F(x). Unlike add, it refuses broadcasting:
// a sublayer that changed the shape is a bug, not something to stretch.
Tensor residual(const Tensor& x, const Tensor& fx);

// Add & Norm of the original Transformer: layer_norm(x + F(x)) over the last dimension.
Tensor add_and_norm(const Tensor& x, const Tensor& fx, const Tensor& weight = {}, const Tensor& bias = {},
                    double eps = 1e-5);

}  // namespace tapegrad
