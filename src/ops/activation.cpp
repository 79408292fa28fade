#include "tapegrad/ops/activation.hpp"

#include <cmath>

#include <xtensor/xmath.hpp>

#include "activation_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

namespace {
kernels::Gelu parse_gelu_approximate(const std::string& approximate, const Tensor& x) {
  if (approximate == "none") return kernels::Gelu::exact;
  if (approximate == "tanh") return kernels::Gelu::tanh;
  throw Error("gelu: approximate must be \"none\" or \"tanh\" (as in torch.nn.functional.gelu), got \"" +
              approximate + "\" for input " + x.label());
}
}  // namespace

// relu:  y = max(x, 0);  dx = dy ⊙ [not x ≤ 0]  (a NaN passes dy, as in torch; the kernel reads the sign from x)
TAPEGRAD_BACKWARD void relu_backward(const Array& dy, const Tensor& x) {
  const Array& xv = x.value();  // dy has x's shape: it is the gradient of relu(x)
  Array dx = Array::from_shape(xv.shape());
  kernels::relu_backward(xv.data(), dy.data(), dx.data(), xv.size());
  x.accumulate_grad(std::move(dx));
}

Tensor relu(const Tensor& x) {
  Array y = Array::from_shape(x.shape());
  kernels::relu_forward(x.value().data(), y.data(), y.size());
  return record("relu", {x}, std::move(y),
                [](const Array& dy, const TapeEntry& e) { relu_backward(dy, e.inputs[0]); });
}

// gelu:  y = x Φ(x) (or its tanh form);  dx = dy ⊙ gelu'(x)  (both forms in activation_kernel.hpp)
TAPEGRAD_BACKWARD void gelu_backward(const Array& dy, const Tensor& x, bool tanh_form) {
  const kernels::Gelu kind = tanh_form ? kernels::Gelu::tanh : kernels::Gelu::exact;
  x.accumulate_grad(dy * kernels::gelu_derivative(x.value(), kind));
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  const kernels::Gelu kind = parse_gelu_approximate(approximate, x);
  return record(kind == kernels::Gelu::exact ? "gelu" : "gelu_tanh", {x}, kernels::gelu_forward(x.value(), kind),
                [kind](const Array& dy, const TapeEntry& e) {
                  gelu_backward(dy, e.inputs[0], kind == kernels::Gelu::tanh);
                });
}

// tanh:  y = tanh x;  dx = dy ⊙ (1 − y²)
TAPEGRAD_BACKWARD void tanh_backward(const Array& dy, const Tensor& x, const Array& y) {
  x.accumulate_grad(dy * (1.0 - y * y));
}

Tensor tanh(const Tensor& x) {
  return record("tanh", {x}, xt::tanh(x.value()),
                [](const Array& dy, const TapeEntry& e) { tanh_backward(dy, e.inputs[0], e.output.value()); });
}

// sigmoid:  y = 1 / (1 + e⁻ˣ);  dx = dy ⊙ y ⊙ (1 − y)
TAPEGRAD_BACKWARD void sigmoid_backward(const Array& dy, const Tensor& x, const Array& y) {
  x.accumulate_grad(dy * y * (1.0 - y));
}

Tensor sigmoid(const Tensor& x) {
  return record("sigmoid", {x}, 1.0 / (1.0 + xt::exp(-x.value())),
                [](const Array& dy, const TapeEntry& e) { sigmoid_backward(dy, e.inputs[0], e.output.value()); });
}

}  // namespace tapegrad
