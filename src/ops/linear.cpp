#include "tapegrad/ops/linear.hpp"

#include "blas.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad {

using blas::as_matrix;

// ---- y = x Wᵀ + b ----
// backward: dx = dy W;  dW = dyᵀ x;  db = Σ_rows dy   (x's leading axes flattened into rows)
// x, dy and dx are read and written in place as (rows, ·) matrices; Wᵀ and dyᵀ are BLAS flags.
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
  const Shape x_shape = x.shape();
  std::size_t rows = 1;  // x's leading axes flattened (not numel / in: in may be 0)
  for (std::size_t d = 0; d + 1 < x_shape.size(); ++d) rows *= x_shape[d];

  Shape y_shape = x_shape;
  y_shape.back() = out;
  Array y = Array::from_shape(y_shape);
  // Every row of y starts as b, and the gemm adds x Wᵀ onto it (beta = 1), as torch's addmm.
  if (bias.defined())
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(bias.value().data(), out, y.data() + r * out);
  blas::gemm(as_matrix(x.value(), rows, in), false, as_matrix(weight.value(), out, in), true, y.data(),
             bias.defined() ? 1.0 : 0.0);

  std::vector<Tensor> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  return record("linear", std::move(inputs), std::move(y), [rows, in, out](const Array& dy, const TapeEntry& e) {
    const Tensor& x = e.inputs[0];
    const Tensor& w = e.inputs[1];
    const blas::Matrix dy2 = as_matrix(dy, rows, out);
    if (x.requires_grad())
      blas::accumulate_product(x, dy2, false, as_matrix(w.value(), out, in), false);  // (rows, out) @ (out, in)
    if (w.requires_grad())
      blas::accumulate_product(w, dy2, true, as_matrix(x.value(), rows, in), false);  // (rows, out)ᵀ @ (rows, in)
    if (e.inputs.size() == 3 && e.inputs[2].requires_grad()) {
      Array db = Array::from_shape({out});
      double* dbs = db.data();
      const double* dys = dy.data();
      std::fill_n(dbs, out, 0.0);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < out; ++j) dbs[j] += dys[r * out + j];
      e.inputs[2].accumulate_grad(std::move(db));
    }
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
