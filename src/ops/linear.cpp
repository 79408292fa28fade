#include "tapegrad/ops/linear.hpp"

#include <xtensor/xreducer.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/matmul.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad {

namespace {
// The rows of x (leading axes flattened) as a 2-D matrix; a copy only for N-D inputs.
Array rows_of(const Array& v, std::size_t cols) {
  Array m = v;
  if (v.dimension() != 2) m.reshape({v.size() / cols, cols});
  return m;
}
}  // namespace

// ---- y = x Wᵀ + b ----
// backward: dx = dy W;  dW = dyᵀ x;  db = Σ_rows dy   (x's leading axes flattened into rows)
// Wᵀ is never built: the transposes are BLAS flags.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (weight.dim() != 2)
    throw ShapeError("linear: weight must be 2-D (out_features, in_features), got " + weight.label());
  const std::size_t out = weight.shape()[0], in = weight.shape()[1];
  if (x.dim() < 1 || x.shape().back() != in)
    throw ShapeError("linear: input " + x.label() + " does not fit weight " + weight.label() +
                     "; expected an input of shape (..., " + std::to_string(in) + ")");
  if (bias.defined() && bias.shape() != Shape{out})
    throw ShapeError("linear: bias has shape " + shape_str(bias.shape()) + " but weight " + weight.label() +
                     " needs (" + std::to_string(out) + ")");

  Array y = gemm(rows_of(x.value(), in), weight.value(), false, true);
  if (bias.defined()) y += bias.value();
  Shape y_shape = x.shape();
  y_shape.back() = out;
  y.reshape(y_shape);

  std::vector<Tensor> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  return record("linear", std::move(inputs), std::move(y), [in, out](const Array& dy, const TapeEntry& e) {
    const Tensor& x = e.inputs[0];
    const Tensor& w = e.inputs[1];
    const Array dy2 = rows_of(dy, out);
    if (x.requires_grad()) {
      Array dx = gemm(dy2, w.value(), false, false);  // (rows, out) @ (out, in)
      dx.reshape(x.shape());
      x.accumulate_grad(dx);
    }
    if (w.requires_grad()) w.accumulate_grad(gemm(dy2, rows_of(x.value(), in), true, false));  // (out, rows) @ (rows, in)
    if (e.inputs.size() == 3 && e.inputs[2].requires_grad())
      e.inputs[2].accumulate_grad(xt::sum(dy2, {0}, xt::evaluation_strategy::immediate));
  });
}

Tensor residual(const Tensor& x, const Tensor& fx) {
  if (x.shape() != fx.shape())
    throw ShapeError("residual: x " + x.label() + " and F(x) " + fx.label() +
                     " must have the same shape; the sublayer changed it");
  return add(x, fx);
}

Tensor add_and_norm(const Tensor& x, const Tensor& fx, const Tensor& weight, const Tensor& bias, double eps) {
  if (x.dim() == 0) throw ShapeError("add_and_norm: expected at least 1-D input, got " + x.label());
  return layer_norm(residual(x, fx), {x.shape().back()}, weight, bias, eps);
}

}  // namespace tapegrad
