#include "tapegrad/ops/matmul.hpp"

#include <xtensor-blas/xblas.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

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
    if (!std::equal(out.shape().begin(), out.shape().end(), out_shape.begin(), out_shape.end())) out.resize(out_shape);
  } else if (!std::equal(out.shape().begin(), out.shape().end(), out_shape.begin(), out_shape.end())) {
    throw ShapeError("gemm: accumulating into " + shape_str(out.shape()) + " but the product is " + shape_str(out_shape));
  }
  if (m == 0 || n == 0) return;
  if (ka == 0) {  // BLAS may not touch `out` when k = 0; an empty sum is 0
    if (beta == 0.0)
      out.fill(0.0);  // not out *= 0: `out` may be uninitialised (NaN * 0 is NaN)
    else
      out *= beta;
    return;
  }
  xt::blas::gemm(A, B, out, transpose_a, transpose_b, 1.0, beta);
}

Array gemm(const Array& A, const Array& B, bool transpose_a, bool transpose_b) {
  Array out;
  gemm(A, B, out, transpose_a, transpose_b, 0.0);
  return out;
}

namespace {
// A copy of v viewed as a (rows, cols) matrix (leading axes flattened into rows).
Array as_matrix(const Array& v, std::size_t rows, std::size_t cols) {
  Array m = v;
  if (v.dimension() != 2) m.reshape({rows, cols});
  return m;
}
}  // namespace

// ---- y = a @ b, a (..., k), b (k, n):  da = dy @ bᵀ,  db = aᵀ @ dy (a's rows flattened) ----
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
  const std::size_t n = b.shape()[1];

  Array y(Shape{rows, n});
  gemm(as_matrix(a.value(), rows, k), b.value(), y);
  Shape out_shape = as;
  out_shape.back() = n;
  y.reshape(out_shape);

  return record("matmul", {a, b}, std::move(y), [rows, k, n, as](const Array& dy, const TapeEntry& e) {
    const Tensor& a = e.inputs[0];
    const Tensor& b = e.inputs[1];
    const Array dy2 = as_matrix(dy, rows, n);
    if (a.requires_grad()) {
      Array da = gemm(dy2, b.value(), false, true);  // (rows, n) @ (k, n)^T
      da.reshape(as);
      a.accumulate_grad(da);
    }
    if (b.requires_grad()) b.accumulate_grad(gemm(as_matrix(a.value(), rows, k), dy2, true, false));  // (rows, k)^T @ (rows, n)
  });
}

}  // namespace tapegrad
