#pragma once
// The activations' elementwise math, written once and used by the ops relu, gelu,
// silu and swiglu and by the fused feed_forward (internal header of src/ops).

#include <cmath>
#include <cstddef>

#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/activation.hpp"

namespace tapegrad::kernels {

// relu:  y = max(x, 0); a NaN stays NaN, as in torch.  y may be x (in place).
inline void relu_forward(const double* x, double* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = v > 0.0 || v != v ? v : 0.0;
  }
}

// relu:  dx = dy·[not x ≤ 0], as torch's threshold_backward: the gradient is zeroed only
// where x ≤ 0, so at a NaN it passes (a NaN input then shows in the gradient too).
// `sign` is x or relu(x): both are ≤ 0 at the same places (relu keeps NaN), so a caller
// that kept only the output can pass it. dx may be dy (in place).
inline void relu_backward(const double* sign, const double* dy, double* dx, std::size_t n) {
  // dy is read whatever the sign, so the select needs no branch (half the signs
  // are random in training: a branch would be mispredicted half the time).
  for (std::size_t i = 0; i < n; ++i) {
    const double d = dy[i];
    dx[i] = sign[i] <= 0.0 ? 0.0 : d;
  }
}

// gelu, as torch.nn.functional.gelu:
// exact:  y = x Φ(x),                 dy/dx = Φ(x) + x φ(x)
// tanh:   y = x/2 (1 + tanh(u)), u = √(2/π)(x + 0.044715 x³)
//         dy/dx = ½(1 + t) + ½ x (1 − t²) √(2/π)(1 + 3·0.044715 x²),  t = tanh(u)
enum class Gelu { exact, tanh };
inline Gelu gelu_kind(Activation activation) { return activation == Activation::gelu_tanh ? Gelu::tanh : Gelu::exact; }

namespace gelu_constants {
const double inv_sqrt2 = 1.0 / std::sqrt(2.0);           // Φ(x) = ½(1 + erf(x/√2))
const double inv_sqrt_2pi = 1.0 / std::sqrt(2.0 * M_PI);  // φ(x) = e^(−x²/2) / √(2π)
const double k = std::sqrt(2.0 / M_PI), c = 0.044715;     // u = k(x + c x³)
}  // namespace gelu_constants

inline Array gelu_forward(const Array& x, Gelu kind) {
  using namespace gelu_constants;
  if (kind == Gelu::exact) return 0.5 * x * (1.0 + xt::erf(x * inv_sqrt2));
  return 0.5 * x * (1.0 + xt::tanh(k * (x + c * x * x * x)));
}

inline Array gelu_derivative(const Array& x, Gelu kind) {
  using namespace gelu_constants;
  if (kind == Gelu::exact) return 0.5 * (1.0 + xt::erf(x * inv_sqrt2)) + x * inv_sqrt_2pi * xt::exp(-0.5 * x * x);
  const Array t = xt::tanh(k * (x + c * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * c * x * x);
}

// sigmoid for one number without overflow: e^(−|x|) is in (0, 1], so neither branch
// forms e^(+large) (1 / (1 + e^1000) would be 1/inf = 0 by luck, but e^x / (1 + e^x) at
// x = 1000 is inf/inf = NaN: each branch takes the form that stays finite).
inline double stable_sigmoid(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);  // in (0, 1)
  return e / (1.0 + e);
}

// silu, as torch.nn.functional.silu:  y = x σ(x),  dy/dx = σ(x) (1 + x (1 − σ(x)))
//   (product rule: σ + x σ', with σ' = σ (1 − σ)).
inline Array silu_forward(const Array& x) {
  Array y = Array::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = x.data()[i] * stable_sigmoid(x.data()[i]);
  return y;
}

inline Array silu_derivative(const Array& x) {
  Array d = Array::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.data()[i], s = stable_sigmoid(v);
    d.data()[i] = s * (1.0 + v * (1.0 - s));
  }
  return d;
}

}  // namespace tapegrad::kernels
