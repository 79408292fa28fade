#pragma once
// Gradients that are matrix products, for the backward functions of linear, matmul
// and feed_forward (internal header of src/ops): t.grad += op(A) @ op(B).

#include <utility>

#include <xtensor/xshape.hpp>

#include "blas.hpp"

namespace tapegrad {

// Each operand is named as it is used, never by a bare bool:
// add_product_to_grad(w, transposed(dy), as_is(x)) reads as w.grad += dyᵀ x.
struct Operand {
  blas::Matrix matrix;
  bool transpose;
};
inline Operand as_is(blas::Matrix m) { return {m, false}; }
inline Operand transposed(blas::Matrix m) { return {m, true}; }

// t.grad += op(a) @ op(b). The first gradient t receives is the product made in a fresh array
// of t's shape. A later one (x of a residual block gets one from each branch) is added by BLAS
// into the gradient t has (beta = 1): no temporary, no separate pass to add it.
inline void add_product_to_grad(const Tensor& t, Operand a, Operand b) {
  if (!t.requires_grad()) return;
  // (The shape check guards the write: a gradient replaced by hand through
  // mutable_grad() may not fit; it then takes the general path below.)
  if (t.has_grad() && xt::same_shape(t.grad().shape(), t.value().shape())) {
    Tensor handle = t;  // a handle to the same tensor, through which its gradient is written
    blas::gemm(a.matrix, a.transpose, b.matrix, b.transpose, handle.mutable_grad().data(), 1.0);
    return;
  }
  Array product = Array::from_shape(t.shape());
  blas::gemm(a.matrix, a.transpose, b.matrix, b.transpose, product.data(), 0.0);
  t.accumulate_grad(std::move(product));
}

// out = op(A) @ op(B), written into out (which the product fills).
inline void write_product(double* out, Operand a, Operand b) {
  blas::gemm(a.matrix, a.transpose, b.matrix, b.transpose, out, 0.0);
}

}  // namespace tapegrad
