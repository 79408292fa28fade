#include "tapegrad/ops/activation.hpp"

#include <cmath>

#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

// ---- relu(x) = max(x, 0):  dx = dy * [x > 0] ----
Tensor relu(const Tensor& x) {
  return record("relu", {x}, xt::maximum(x.value(), 0.0), [](const Array& dy, const TapeEntry& e) {
    const Array& x = e.inputs[0].value();  // dy has x's shape: it is the gradient of relu(x)
    Array dx = Array::from_shape(x.shape());
    const double *xs = x.data(), *dys = dy.data();
    double* dxs = dx.data();
    // dy is read whatever the sign, so the select needs no branch (half the signs
    // are random in training: a branch would be mispredicted half the time).
    for (std::size_t i = 0, n = x.size(); i < n; ++i) {
      const double d = dys[i];
      dxs[i] = xs[i] > 0.0 ? d : 0.0;
    }
    e.inputs[0].accumulate_grad(std::move(dx));
  });
}

// ---- gelu ----
// exact:  y = x Φ(x),                 dx = dy (Φ(x) + x φ(x))
// tanh:   y = x/2 (1 + tanh(u)), u = √(2/π)(x + 0.044715 x³)
//         dx = dy (½(1 + t) + ½ x (1 − t²) √(2/π)(1 + 3·0.044715 x²)),  t = tanh(u)
Tensor gelu(const Tensor& x, const std::string& approximate) {
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  const double inv_sqrt_2pi = 1.0 / std::sqrt(2.0 * M_PI);
  const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
  const Array& v = x.value();
  if (approximate == "none") {
    return record("gelu", {x}, 0.5 * v * (1.0 + xt::erf(v * inv_sqrt2)),
                  [=](const Array& dy, const TapeEntry& e) {
                    const Array& x = e.inputs[0].value();
                    e.inputs[0].accumulate_grad(
                        dy * (0.5 * (1.0 + xt::erf(x * inv_sqrt2)) + x * inv_sqrt_2pi * xt::exp(-0.5 * x * x)));
                  });
  }
  if (approximate == "tanh") {
    return record("gelu_tanh", {x}, 0.5 * v * (1.0 + xt::tanh(k * (v + c * v * v * v))),
                  [=](const Array& dy, const TapeEntry& e) {
                    const Array& x = e.inputs[0].value();
                    const Array t = xt::tanh(k * (x + c * x * x * x));
                    e.inputs[0].accumulate_grad(
                        dy * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * c * x * x)));
                  });
  }
  throw Error("gelu: approximate must be \"none\" or \"tanh\" (as in torch.nn.functional.gelu), got \"" +
              approximate + "\" for input " + x.label());
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
