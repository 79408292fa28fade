#pragma once
// Softmax and log-softmax over one axis, computed stably (max subtracted).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor softmax(const Tensor& x, long axis = -1);
Tensor log_softmax(const Tensor& x, long axis = -1);

// ---- backward rules (the math is above each one in softmax.cpp) ----
// y is the op's output; axis is already normalised (0 <= axis < x.dim()).
void softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis);
void log_softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis);

}  // namespace tapegrad
