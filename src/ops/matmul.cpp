#include "tapegrad/ops/matmul.hpp"

#include <xtensor/xshape.hpp>

#include "blas.hpp"
#include "product_grad.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

using blas::as_matrix;

void gemm(const Array& A, const Array& B, Array& out, bool transpose_a, bool transpose_b, double beta) {
  if (A.dimension() != 2 || B.dimension() != 2)
    throw ShapeError("gemm: expected 2-D arrays, got " + shape_str(A.shape()) + " and " + shape_str(B.shape()));
  const std::size_t m = transpose_a ? A.shape()[1] : A.shape()[0];
  const std::size_t ka = transpose_a ? A.shape()[0] : A.shape()[1];
  const std::size_t kb = transpose_b ? B.shape()[1] : B.shape()[0];
  const std::size_t n = transpose_b ? B.shape()[0] : B.shape()[1];
  if (ka != kb)
    throw ShapeError("gemm: inner dimensions differ: " + shape_str(A.shape()) + (transpose_a ? "^T" : "") + " @ " +
                     shape_str(B.shape()) + (transpose_b ? "^T" : ""));
  const Shape out_shape{m, n};
  if (beta == 0.0) {
    if (!xt::same_shape(out.shape(), out_shape)) out.resize(out_shape);
  } else if (!xt::same_shape(out.shape(), out_shape)) {
    throw ShapeError("gemm: accumulating into " + shape_str(out.shape()) + " but the product is " + shape_str(out_shape));
  }
  blas::gemm(as_matrix(A, A.shape()[0], A.shape()[1]), transpose_a, as_matrix(B, B.shape()[0], B.shape()[1]),
             transpose_b, out.data(), beta);
}

Array gemm(const Array& A, const Array& B, bool transpose_a, bool transpose_b) {
  Array out;
  gemm(A, B, out, transpose_a, transpose_b, 0.0);
  return out;
}

// a's leading axes flattened into rows: a (rows, k) @ b (k, n) = y (rows, n).
struct MatmulShape {
  std::size_t rows, k, n;
};

TAPEGRAD_BACKWARD void matmul_backward(const Array& dy, const Tensor& a, const Tensor& b, const MatmulShape& s);

// ---- y = a @ b, a (..., k), b (k, n) ----
// a, dy and da are read and written in place as (rows, ·) matrices; bᵀ and aᵀ are BLAS flags.
Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() < 2 || b.dim() != 2)
    throw ShapeError("matmul: expected a of shape (..., k) with at least 2 dimensions and a 2-D b (k, n), got " +
                     a.label() + " @ " + b.label());
  const Shape as = a.shape();
  const std::size_t k = as.back();
  if (k != b.shape()[0])
    throw ShapeError("matmul: inner dimensions differ: " + a.label() + " @ " + b.label() + "; expected a.shape[-1] (" +
                     std::to_string(k) + ") == b.shape[0] (" + std::to_string(b.shape()[0]) + ")");
  std::size_t rows = 1;  // a's leading axes flattened (not numel / k: k may be 0)
  for (std::size_t d = 0; d + 1 < as.size(); ++d) rows *= as[d];
  const MatmulShape s{rows, k, b.shape()[1]};

  Shape out_shape = as;
  out_shape.back() = s.n;
  Array y = Array::from_shape(out_shape);
  blas::gemm(as_matrix(a.value(), s.rows, s.k), false, as_matrix(b.value(), s.k, s.n), false, y.data(), 0.0);

  return record("matmul", {a, b}, std::move(y),
                [s](const Array& dy, const TapeEntry& e) { matmul_backward(dy, e.inputs[0], e.inputs[1], s); });
}

// backward: da = dy @ bᵀ,  db = aᵀ @ dy
TAPEGRAD_BACKWARD void matmul_backward(const Array& dy, const Tensor& a, const Tensor& b, const MatmulShape& s) {
  const blas::Matrix dy2 = as_matrix(dy, s.rows, s.n);
  add_product_to_grad(a, as_is(dy2), transposed(as_matrix(b.value(), s.k, s.n)));       // (rows, n) @ (k, n)ᵀ
  add_product_to_grad(b, transposed(as_matrix(a.value(), s.rows, s.k)), as_is(dy2));  // (rows, k)ᵀ @ (rows, n)
}

}  // namespace tapegrad
