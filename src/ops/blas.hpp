#pragma once
// Matrix products straight through BLAS on row-major memory (internal header of src/ops).
//
// An Array is one contiguous row-major block, so any Array of rows·cols values *is*
// a (rows, cols) matrix: BLAS reads it in place. No copy for N-D inputs (leading axes
// flattened into rows) and none for transposes (a flag of the call).

#include <cblas.h>

#include <algorithm>

#include "tapegrad/autograd/tensor.hpp"  // Array

namespace tapegrad::blas {

// A (rows, cols) row-major matrix in someone else's memory.
struct Matrix {
  const double* data;
  std::size_t rows, cols;
};

// v's rows·cols values viewed as a (rows, cols) matrix (an N-D v: its leading axes flattened into rows).
inline Matrix as_matrix(const Array& v, std::size_t rows, std::size_t cols) { return {v.data(), rows, cols}; }

// out (m, n) = op(A) @ op(B) + beta · out, op = transpose when the flag is set.
// The caller checks the shapes; `out` holds m·n values (read only if beta != 0).
inline void gemm(Matrix A, bool transpose_a, Matrix B, bool transpose_b, double* out, double beta) {
  const std::size_t m = transpose_a ? A.cols : A.rows;
  const std::size_t k = transpose_a ? A.rows : A.cols;
  const std::size_t n = transpose_b ? B.rows : B.cols;
  if (m == 0 || n == 0) return;
  if (k == 0) {  // BLAS may not touch `out` when k = 0; an empty sum is 0
    for (std::size_t i = 0; i < m * n; ++i) out[i] = beta == 0.0 ? 0.0 : beta * out[i];  // not 0·out: out may be NaN
    return;
  }
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, A.data,
              static_cast<int>(std::max<std::size_t>(A.cols, 1)), B.data, static_cast<int>(std::max<std::size_t>(B.cols, 1)),
              beta, out, static_cast<int>(n));
}

}  // namespace tapegrad::blas
