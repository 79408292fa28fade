#pragma once
// The residual connection, and Add & Norm built on it.

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// The residual connection x + F(x). Unlike add, it refuses broadcasting:
// a sublayer that changed the shape is a bug, not something to stretch.
// Its backward is add's: the gradient reaches x unchanged, around F.
Tensor residual(const Tensor& x, const Tensor& fx);

// Add & Norm of the original Transformer: layer_norm(x + F(x)) over the last dimension.
Tensor add_and_norm(const Tensor& x, const Tensor& fx, const Tensor& weight = {}, const Tensor& bias = {},
                    double eps = 1e-5);

}  // namespace tapegrad
