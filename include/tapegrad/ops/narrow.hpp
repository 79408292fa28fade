#pragma once
// narrow: a slice of consecutive entries along one axis, as torch.narrow
// (SelfAttention cuts q, k and v out of one packed projection with it).

#include <cstddef>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// x[..., start : start + length, ...] along `dim` (negative counts from the end), as a copy.
Tensor narrow(const Tensor& x, long dim, std::size_t start, std::size_t length);

// The backward of narrow: dx is zero except the slice, which gets dy.
void narrow_backward(const Array& dy, const Tensor& x, std::size_t dim, std::size_t start);

}  // namespace tapegrad
