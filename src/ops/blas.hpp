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

// A (rows, cols) row-major matrix in someone else's memory. Row i starts at data + i·ld; ld = 0 means
// ld = cols (packed rows). A larger ld reads a block of a wider matrix in place: one head's columns
// of a packed (S, 3d) projection is {qkv + h·dh, S, dh, 3d}.
struct Matrix {
  const double* data;
  std::size_t rows, cols;
  std::size_t ld = 0;
  int leading() const { return static_cast<int>(std::max<std::size_t>(ld ? ld : cols, 1)); }
};

// v's rows·cols values viewed as a (rows, cols) matrix (an N-D v: its leading axes flattened into rows).
inline Matrix as_matrix(const Array& v, std::size_t rows, std::size_t cols) { return {v.data(), rows, cols}; }

// out (m, n) = op(A) @ op(B) + beta · out, op = transpose when the flag is set.
// The caller checks the shapes; `out` holds m rows of n values, row i at out + i·out_ld
// (out_ld = 0: n, packed), read only if beta != 0.
inline void gemm(Matrix A, bool transpose_a, Matrix B, bool transpose_b, double* out, double beta,
                 std::size_t out_ld = 0) {
  const std::size_t m = transpose_a ? A.cols : A.rows;
  const std::size_t k = transpose_a ? A.rows : A.cols;
  const std::size_t n = transpose_b ? B.rows : B.cols;
  if (m == 0 || n == 0) return;
  const std::size_t ldc = out_ld ? out_ld : n;
  if (k == 0) {  // BLAS may not touch `out` when k = 0; an empty sum is 0
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double& o = out[i * ldc + j];
        o = beta == 0.0 ? 0.0 : beta * o;  // not 0·out: out may be NaN
      }
    return;
  }
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, A.data,
              A.leading(), B.data, B.leading(), beta, out, static_cast<int>(ldc));
}

}  // namespace tapegrad::blas
