#pragma once
// Reductions over chosen axes (negative axes count from the end).
// An empty axis list means every axis, as in PyTorch 1.13 (torch.sum(x, dim=[]) sums
// everything; NumPy's np.sum(x, axis=()) would return x unchanged): sum(x, {}) == sum(x),
// and with keepdims every dimension becomes 1.
// Empty tensors: a sum over an axis of size 0 is 0 and a mean over one is NaN (0/0), as in
// PyTorch; but mean(x) and mean(x, {}) of an empty x are refused (an error, where PyTorch
// returns NaN: a whole-tensor mean of nothing is almost always a bug, e.g. an empty batch).

#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

using Axes = std::vector<long>;

Tensor sum(const Tensor& x);  // over everything: a 0-d tensor (0 for an empty x)
Tensor sum(const Tensor& x, const Axes& axes, bool keepdims = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims = false);

// Checks and normalises axes for `op` on a tensor of `shape`: sorted,
// non-negative, unique; throws ShapeError otherwise.
std::vector<std::size_t> normalize_axes(const char* op, const Axes& axes, const Shape& shape);

// ---- backward rules (the math is above each one in reduce.cpp) ----
// kept_shape: x's shape with the reduced axes set to 1; count: how many elements each mean averaged.
void sum_backward(const Array& dy, const Tensor& x, const Shape& kept_shape);
void mean_backward(const Array& dy, const Tensor& x, const Shape& kept_shape, double count);

}  // namespace tapegrad
