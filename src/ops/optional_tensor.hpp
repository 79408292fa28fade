#pragma once
// An op's optional tensor (a bias or a norm's weight that may be absent, an undefined Tensor):
// its values for a kernel, or null, and whether it wants a gradient (internal header of src/ops).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

inline const double* data_or_null(const Tensor& t) { return t.defined() ? t.value().data() : nullptr; }
inline bool wants_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

}  // namespace tapegrad
