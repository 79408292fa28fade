#include "tapegrad/ops/linear.hpp"

#include "linear_kernel.hpp"
#include "optional_tensor.hpp"
#include "product_grad.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

using blas::as_matrix;
using kernels::LinearShape;

TAPEGRAD_BACKWARD void linear_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor* bias,
                                       const LinearShape& s);

// ---- y = x Wᵀ + b ----
// x's leading axes are flattened into rows: x (rows, in), W (out, in), y (rows, out).
// x, dy and dx are read and written in place as matrices; Wᵀ and dyᵀ are BLAS flags.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const LinearShape s =
      kernels::check_linear("linear", [&] { return "input " + x.label(); }, x.shape(), "weight", weight, "bias", bias);
  Shape y_shape = x.shape();
  y_shape.back() = s.out;
  Array y = Array::from_shape(y_shape);
  kernels::linear_forward(x.value().data(), s, weight.value(), data_or_null(bias), y.data());

  OpInputs inputs;
  inputs.add(x);
  inputs.add(weight);
  const int bias_slot = inputs.add(bias);
  return record("linear", std::move(inputs.tensors), std::move(y), [s, bias_slot](const Array& dy, const TapeEntry& e) {
    linear_backward(dy, e.inputs[0], e.inputs[1], input_at(e, bias_slot), s);
  });
}

// backward: dx = dy W;  dW = dyᵀ x;  db = Σ_rows dy
TAPEGRAD_BACKWARD void linear_backward(const Array& dy, const Tensor& x, const Tensor& weight, const Tensor* bias,
                                       const LinearShape& s) {
  const blas::Matrix dy2 = as_matrix(dy, s.rows, s.out);
  add_product_to_grad(x, as_is(dy2), as_is(as_matrix(weight.value(), s.out, s.in)));         // (rows, out) @ (out, in)
  add_product_to_grad(weight, transposed(dy2), as_is(as_matrix(x.value(), s.rows, s.in)));  // (rows, out)ᵀ @ (rows, in)
  if (bias && bias->requires_grad()) bias->accumulate_grad(kernels::bias_grad(dy.data(), s.rows, s.out));
}

}  // namespace tapegrad
