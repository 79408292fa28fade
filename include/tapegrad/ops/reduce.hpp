#pragma once
// Reductions over chosen axes (negative axes count from the end).

#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

using Axes = std::vector<long>;

Tensor sum(const Tensor& x);  // over everything: a 0-d tensor
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
