#pragma once
// Handing a freshly computed gradient to a tensor without copying it (internal header of src/ops).

#include <algorithm>
#include <utility>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// t.accumulate_grad(g) for a g the caller is done with. When t has no gradient yet
// and g already has t's shape — the usual case in backward — g's buffer simply
// becomes t's gradient: a move instead of a copy of the whole array. Otherwise
// (adding to an existing gradient, summing broadcast axes) Tensor::accumulate_grad.
inline void accumulate_grad(const Tensor& t, Array&& g) {
  TensorImpl* impl = t.impl_.get();
  const bool first_of_same_shape =
      impl && impl->requires_grad && !impl->has_grad &&
      std::equal(g.shape().begin(), g.shape().end(), impl->value.shape().begin(), impl->value.shape().end());
  if (!first_of_same_shape) return t.accumulate_grad(g);
  impl->grad = std::move(g);
  impl->has_grad = true;
}

}  // namespace tapegrad
