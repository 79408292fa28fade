// The FFN on loops as a learner writes it (the reference solution), with GELU's slips:
// SLIP_GELU_TANH (the tanh approximation, forward and backward), SLIP_GELU_GRAD_PHI_ONLY (GELU′ = Φ).
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

// act(h) and act'(h): ReLU, or the exact GELU h·Φ(h).
static double activate(double h, const std::string& activation) {
  if (activation == "relu") return h > 0 ? h : 0.0;
#if defined(SLIP_GELU_TANH)
  return 0.5 * h * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (h + 0.044715 * h * h * h)));
#else
  return 0.5 * h * (1.0 + std::erf(h / std::sqrt(2.0)));
#endif
}
static double activate_grad(double h, const std::string& activation) {
  if (activation == "relu") return h > 0 ? 1.0 : 0.0;
#if defined(SLIP_GELU_TANH)
  const double u = std::sqrt(2.0 / M_PI) * (h + 0.044715 * h * h * h), t = std::tanh(u);
  return 0.5 * (1.0 + t) + 0.5 * h * (1.0 - t * t) * std::sqrt(2.0 / M_PI) * (1.0 + 3 * 0.044715 * h * h);
#elif defined(SLIP_GELU_GRAD_PHI_ONLY)
  return 0.5 * (1.0 + std::erf(h / std::sqrt(2.0)));  // Φ(h): the h·φ(h) of the product rule forgotten
#else
  return 0.5 * (1.0 + std::erf(h / std::sqrt(2.0))) + h * std::exp(-0.5 * h * h) / std::sqrt(2.0 * M_PI);
#endif
}

// h = x W1ᵀ + b1, a = act(h), y = a W2ᵀ + b2, row by row.
tapegrad::Array ffn_forward(const tapegrad::Array& x, const tapegrad::Array& w1, const tapegrad::Array& b1,
                            const tapegrad::Array& w2, const tapegrad::Array& b2, const std::string& activation) {
  const std::size_t in = w1.shape()[1], hidden = w1.shape()[0], out = w2.shape()[0], rows = x.size() / in;
  tapegrad::Shape shape(x.shape().begin(), x.shape().end());
  shape.back() = out;
  tapegrad::Array y = tapegrad::Array::from_shape(shape);
  std::vector<double> a(hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < hidden; ++j) {
      double h = b1(j);
      for (std::size_t i = 0; i < in; ++i) h += x.data()[r * in + i] * w1(j, i);
      a[j] = activate(h, activation);
    }
    for (std::size_t o = 0; o < out; ++o) {
      double s = b2(o);
      for (std::size_t j = 0; j < hidden; ++j) s += a[j] * w2(o, j);
      y.data()[r * out + o] = s;
    }
  }
  return y;
}

// dW2 = Σ dyᵀ a, db2 = Σ dy, dh = (dy W2) ⊙ act'(h), dW1 = Σ dhᵀ x, db1 = Σ dh, dx = dh W1.
tapegrad::exercise::FfnGrads ffn_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                          const tapegrad::Array& w1, const tapegrad::Array& b1,
                                          const tapegrad::Array& w2, const tapegrad::Array& b2,
                                          const std::string& activation) {
  (void)b2;
  const std::size_t in = w1.shape()[1], hidden = w1.shape()[0], out = w2.shape()[0], rows = x.size() / in;
  tapegrad::exercise::FfnGrads g;
  g.dx = tapegrad::Array::from_shape(x.shape());
  g.dw1 = tapegrad::Array::from_shape(w1.shape());
  g.db1 = tapegrad::Array::from_shape(b1.shape());
  g.dw2 = tapegrad::Array::from_shape(w2.shape());
  g.db2 = tapegrad::Array::from_shape({out});
  g.dw1.fill(0), g.db1.fill(0), g.dw2.fill(0), g.db2.fill(0);
  std::vector<double> h(hidden), dh(hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * in;
    const double* dyr = dy.data() + r * out;
    for (std::size_t j = 0; j < hidden; ++j) {
      h[j] = b1(j);
      for (std::size_t i = 0; i < in; ++i) h[j] += xr[i] * w1(j, i);
    }
    for (std::size_t o = 0; o < out; ++o) {
      g.db2(o) += dyr[o];
      for (std::size_t j = 0; j < hidden; ++j) g.dw2(o, j) += dyr[o] * activate(h[j], activation);
    }
    for (std::size_t j = 0; j < hidden; ++j) {
      double da = 0;
      for (std::size_t o = 0; o < out; ++o) da += dyr[o] * w2(o, j);
      dh[j] = da * activate_grad(h[j], activation);
      g.db1(j) += dh[j];
      for (std::size_t i = 0; i < in; ++i) g.dw1(j, i) += dh[j] * xr[i];
    }
    for (std::size_t i = 0; i < in; ++i) {
      double s = 0;
      for (std::size_t j = 0; j < hidden; ++j) s += dh[j] * w1(j, i);
      g.dx.data()[r * in + i] = s;
    }
  }
  return g;
}
