#pragma once
// A batch of matrix products, as torch.matmul for two N-D tensors with the same batch axes:
// a (..., m, k) @ b (..., k, n) -> (..., m, n), one product per leading index. Attention's
// q kᵀ and P v are such products (one per batch element and head).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// a and b need at least 2 dimensions, the same number of them and equal leading axes
// (no broadcasting: a missing head axis is a bug to report, not to stretch).
Tensor batched_matmul(const Tensor& a, const Tensor& b);

// The backward of batched_matmul, per batch index i: da_i = dy_i b_iᵀ, db_i = a_iᵀ dy_i.
void batched_matmul_backward(const Array& dy, const Tensor& a, const Tensor& b);

}  // namespace tapegrad
