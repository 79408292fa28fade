// A planted mistake (written by hand from the reference solution, kept in tests/exercises/mistakes/):
// exercise: swiglu
// mistake: gate_up_swapped (silu(x W3ᵀ) ⊙ x W1ᵀ)
// The grader must fail it and diagnose diagnosis=gate_up_swapped.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::SwigluGrads;

static double sigmoid(double g) { return 1.0 / (1.0 + std::exp(-g)); }
static double silu(double g) { return g * sigmoid(g); }
static double silu_grad(double g) { return sigmoid(g) + g * sigmoid(g) * (1.0 - sigmoid(g)); }

// g = x W1ᵀ, u = x W3ᵀ, a = silu(g) ⊙ u, y = a W2ᵀ, row by row.
Array swiglu_forward(const Array& x, const Array& w1, const Array& w3, const Array& w2) {
  const std::size_t in = w1.shape()[1], hidden = w1.shape()[0], out = w2.shape()[0], rows = x.size() / in;
  tapegrad::Shape shape(x.shape().begin(), x.shape().end());
  shape.back() = out;
  Array y = Array::from_shape(shape);
  std::vector<double> a(hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < hidden; ++j) {
      double gate = 0, up = 0;
      for (std::size_t i = 0; i < in; ++i) {
        gate += x.data()[r * in + i] * w3(j, i);
        up += x.data()[r * in + i] * w1(j, i);
      }
      a[j] = silu(gate) * up;
    }
    for (std::size_t o = 0; o < out; ++o) {
      double s = 0;
      for (std::size_t j = 0; j < hidden; ++j) s += a[j] * w2(o, j);
      y.data()[r * out + o] = s;
    }
  }
  return y;
}

// dW2 = Σ dyᵀ a; da = dy W2; dg = da ⊙ u ⊙ silu'(g); du = da ⊙ silu(g); dW1 = Σ dgᵀ x; dW3 = Σ duᵀ x;
// dx = dg W1 + du W3.
SwigluGrads swiglu_backward(const Array& dy, const Array& x, const Array& w1, const Array& w3, const Array& w2) {
  const std::size_t in = w1.shape()[1], hidden = w1.shape()[0], out = w2.shape()[0], rows = x.size() / in;
  SwigluGrads g;
  g.dx = Array::from_shape(x.shape());
  g.dw1 = Array::from_shape(w1.shape());
  g.dw3 = Array::from_shape(w3.shape());
  g.dw2 = Array::from_shape(w2.shape());
  g.dx.fill(0.0), g.dw1.fill(0.0), g.dw3.fill(0.0), g.dw2.fill(0.0);
  std::vector<double> gate(hidden), up(hidden), dg(hidden), du(hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * in;
    const double* dyr = dy.data() + r * out;
    for (std::size_t j = 0; j < hidden; ++j) {
      gate[j] = up[j] = 0;
      for (std::size_t i = 0; i < in; ++i) gate[j] += xr[i] * w3(j, i), up[j] += xr[i] * w1(j, i);
    }
    for (std::size_t j = 0; j < hidden; ++j) {
      double da = 0;
      for (std::size_t o = 0; o < out; ++o) {
        da += dyr[o] * w2(o, j);
        g.dw2(o, j) += dyr[o] * silu(gate[j]) * up[j];
      }
      dg[j] = da * up[j] * silu_grad(gate[j]);
      du[j] = da * silu(gate[j]);
    }
    for (std::size_t j = 0; j < hidden; ++j)
      for (std::size_t i = 0; i < in; ++i) {
        g.dw3(j, i) += dg[j] * xr[i];
        g.dw1(j, i) += du[j] * xr[i];
        g.dx.data()[r * in + i] += dg[j] * w3(j, i) + du[j] * w1(j, i);
      }
  }
  return g;
}
