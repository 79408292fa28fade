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

// ---- relu(x) = max(x, 0):  dx = dy * [x > 0] ----
Tensor relu(const Tensor& x) {
  Array y = Array::from_shape(x.shape());
  kernels::relu_forward(x.value().data(), y.data(), y.size());
  return record("relu", {x}, std::move(y), [](const Array& dy, const TapeEntry& e) {
    const Array& x = e.inputs[0].value();  // dy has x's shape: it is the gradient of relu(x)
    Array dx = Array::from_shape(x.shape());
    kernels::relu_backward(x.data(), dy.data(), dx.data(), x.size());
    e.inputs[0].accumulate_grad(std::move(dx));
  });
}

// ---- gelu:  dx = dy · gelu'(x)  (both forms in activation_kernel.hpp) ----
Tensor gelu(const Tensor& x, const std::string& approximate) {
  const kernels::Gelu kind = parse_gelu_approximate(approximate, x);
  return record(kind == kernels::Gelu::exact ? "gelu" : "gelu_tanh", {x}, kernels::gelu_forward(x.value(), kind),
                [kind](const Array& dy, const TapeEntry& e) {
                  e.inputs[0].accumulate_grad(dy * kernels::gelu_derivative(e.inputs[0].value(), kind));
                });
}

// ---- tanh:  dx = dy (1 − y²) ----
Tensor tanh(const Tensor& x) {
  return record("tanh", {x}, xt::tanh(x.value()), [](const Array& dy, const TapeEntry& e) {
    const Array& y = e.output.value();
    e.inputs[0].accumulate_grad(dy * (1.0 - y * y));
  });
}

// ---- sigmoid y = 1/(1+e^−x):  dx = dy y (1 − y) ----
Tensor sigmoid(const Tensor& x) {
  return record("sigmoid", {x}, 1.0 / (1.0 + xt::exp(-x.value())), [](const Array& dy, const TapeEntry& e) {
    const Array& y = e.output.value();
    e.inputs[0].accumulate_grad(dy * y * (1.0 - y));
  });
}

}  // namespace tapegrad
