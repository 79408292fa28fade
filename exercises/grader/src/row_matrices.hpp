#pragma once
// Arrays of shape (..., n) as matrices (rows, n) and back: how the exercises on rows of x (the SwiGLU FFN,
// LoRA) compute their references and their catalogue's mistakes with one matrix product each.

#include "grader.hpp"

namespace tapegrad::exercise::detail {

// (..., n) -> (rows, n), the rows in row-major order.
inline Array as_rows(const Array& a) {
  Array r = a;
  r.reshape({rows_of(a), last_dim(a)});
  return r;
}
// (rows, n) -> like's leading axes with n last.
inline Array with_leading_axes(Array m, const Array& like) {
  Shape s(like.shape().begin(), like.shape().end());
  s.back() = m.shape()[1];
  m.reshape(s);
  return m;
}

}  // namespace tapegrad::exercise::detail
