#pragma once
// Matrix products through BLAS (cblas_dgemm of OpenBLAS, the library xtensor-blas wraps).
// Called directly rather than through xt::linalg so that N-D inputs and transposes are
// read in place: xtensor-blas would first evaluate such views into copies.

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// a @ b with a of shape (..., k) and b of shape (k, n): leading axes of a are
// treated as a batch of rows, as torch.matmul does for a 2-D b.
Tensor matmul(const Tensor& a, const Tensor& b);

// op(A) @ op(B) for 2-D arrays, op = transpose when the flag is set; the
// transpose is folded into the BLAS call, never materialised.
// With beta != 0 it adds into `out`:  out = op(A) @ op(B) + beta * out.
void gemm(const Array& A, const Array& B, Array& out, bool transpose_a = false, bool transpose_b = false,
          double beta = 0.0);
Array gemm(const Array& A, const Array& B, bool transpose_a = false, bool transpose_b = false);

}  // namespace tapegrad
