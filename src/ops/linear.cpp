#include "tapegrad/ops/linear.hpp"

#include "linear_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad {

using blas::as_matrix;

// ---- y = x Wᵀ + b ----
// backward: dx = dy W;  dW = dyᵀ x;  db = Σ_rows dy   (x's leading axes flattened into rows)
// x, dy and dx are read and written in place as (rows, ·) matrices; Wᵀ and dyᵀ are BLAS flags.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const kernels::LinearShape s =
      kernels::check_linear("linear", [&] { return "input " + x.label(); }, x.shape(), "weight", weight, "bias", bias);
  Shape y_shape = x.shape();
  y_shape.back() = s.out;
  Array y = Array::from_shape(y_shape);
  const double* b = bias.defined() ? bias.value().data() : nullptr;
  kernels::linear_forward(x.value().data(), s, weight.value(), b, y.data());

  std::vector<Tensor> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  return record("linear", std::move(inputs), std::move(y), [s](const Array& dy, const TapeEntry& e) {
    const Tensor& x = e.inputs[0];
    const Tensor& w = e.inputs[1];
    const blas::Matrix dy2 = as_matrix(dy, s.rows, s.out);
    if (x.requires_grad())
      blas::accumulate_product(x, dy2, false, as_matrix(w.value(), s.out, s.in), false);  // (rows, out) @ (out, in)
    if (w.requires_grad())
      blas::accumulate_product(w, dy2, true, as_matrix(x.value(), s.rows, s.in), false);  // (rows, out)ᵀ @ (rows, in)
    if (e.inputs.size() == 3 && e.inputs[2].requires_grad())
      e.inputs[2].accumulate_grad(kernels::bias_grad(dy.data(), s.rows, s.out));
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
