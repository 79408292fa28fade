#pragma once
// Ops that move values around without changing them.

#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor transpose(const Tensor& x);                      // 2-D: rows <-> columns
Tensor transpose(const Tensor& x, long dim0, long dim1);  // swap two axes, as torch.transpose
// Reorder the axes, as torch.permute: y's axis i is x's axis dims[i] (negative counts from the end).
Tensor permute(const Tensor& x, const std::vector<long>& dims);
// New shape with the same number of elements; at most one -1 is inferred.
Tensor reshape(const Tensor& x, const std::vector<long>& shape);

// ---- backward rules (the math is above each one in shape.cpp) ----
void permute_backward(const Array& dy, const Tensor& x, const std::vector<std::size_t>& perm);  // transpose's too
void reshape_backward(const Array& dy, const Tensor& x);

}  // namespace tapegrad
