#pragma once
// Softmax and log-softmax over one axis, computed stably (max subtracted).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor softmax(const Tensor& x, long axis = -1);
Tensor log_softmax(const Tensor& x, long axis = -1);

}  // namespace tapegrad
