#pragma once
// The engine's write access to a tensor's bookkeeping (internal header of src/autograd/).
// TensorImpl is the engine's: record() says where a tensor was made, the backward walk
// frees gradients and releases graphs. Everyone else reads it (Tensor::impl()).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

struct EngineAccess {
  static TensorImpl& impl(const Tensor& t) { return *t.impl_; }
};

}  // namespace tapegrad
