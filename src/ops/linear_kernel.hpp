#pragma once
// The pieces of y = x Wᵀ + b that linear and the fused feed_forward share
// (internal header of src/ops). x's leading axes are flattened into rows.

#include <algorithm>
#include <string>

#include <xtensor/xbuilder.hpp>

#include "blas.hpp"
#include "tapegrad/autograd/error.hpp"

namespace tapegrad::kernels {

struct LinearShape {
  std::size_t rows, in, out;
};

// Checks that an input of shape x_shape fits weight (out, in) and bias (out) or
// undefined. `op`, the names and describe_input() (called only to write an error
// message: every forward passes here) go into the error messages.
template <class DescribeInput>
LinearShape check_linear(const char* op, DescribeInput describe_input, const Shape& x_shape, const char* weight_name,
                         const Tensor& weight, const char* bias_name, const Tensor& bias) {
  const auto fail = [op](const std::string& what) { return ShapeError(std::string(op) + ": " + what); };
  if (weight.dim() != 2)
    throw fail(weight_name + std::string(" must be 2-D (out_features, in_features), got ") + weight.label());
  const std::size_t out = weight.shape()[0], in = weight.shape()[1];
  if (x_shape.empty() || x_shape.back() != in)
    throw fail(describe_input() + " does not fit " + weight_name + " " + weight.label() +
               "; expected an input of shape (..., " + std::to_string(in) + ")");
  if (bias.defined() && bias.shape() != Shape{out})
    throw fail(bias_name + std::string(" has shape ") + shape_str(bias.shape()) + " but " + weight_name + " " +
               weight.label() + " needs (" + std::to_string(out) + ")");
  std::size_t rows = 1;  // the leading axes flattened (not numel / in: in may be 0)
  for (std::size_t d = 0; d + 1 < x_shape.size(); ++d) rows *= x_shape[d];
  return {rows, in, out};
}

// y (rows, out) = x Wᵀ + b, written into y. Every row of y starts as b and the
// gemm adds x Wᵀ onto it (beta = 1), as torch's addmm.
inline void linear_forward(const double* x, const LinearShape& s, const Array& weight, const double* bias, double* y) {
  if (bias)
    for (std::size_t r = 0; r < s.rows; ++r) std::copy_n(bias, s.out, y + r * s.out);
  blas::gemm({x, s.rows, s.in}, false, {weight.data(), s.out, s.in}, true, y, bias ? 1.0 : 0.0);
}

// db = Σ_rows dy, dy of shape (rows, out).
inline Array bias_grad(const double* dy, std::size_t rows, std::size_t out) {
  Array db = xt::zeros<double>({out});
  double* dbs = db.data();
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < out; ++j) dbs[j] += dy[r * out + j];
  return db;
}

}  // namespace tapegrad::kernels
