// Reference solution of exercise 19 (exercises/19_lora.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::LoraGrads;

// y = x Wᵀ + s (x Aᵀ) Bᵀ, s = alpha / r, row by row.
Array lora_forward(const Array& x, const Array& w, const Array& a, const Array& b, double alpha) {
  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;
  const double s = alpha / double(r);
  tapegrad::Shape shape(x.shape().begin(), x.shape().end());
  shape.back() = out;
  Array y = Array::from_shape(shape);
  std::vector<double> xa(r);
  for (std::size_t row = 0; row < rows; ++row) {
    const double* xr = x.data() + row * in;
    for (std::size_t k = 0; k < r; ++k) {
      xa[k] = 0;
      for (std::size_t i = 0; i < in; ++i) xa[k] += xr[i] * a(k, i);
    }
    for (std::size_t o = 0; o < out; ++o) {
      double base = 0, low_rank = 0;
      for (std::size_t i = 0; i < in; ++i) base += xr[i] * w(o, i);
      for (std::size_t k = 0; k < r; ++k) low_rank += xa[k] * b(o, k);
      y.data()[row * out + o] = base + s * low_rank;
    }
  }
  return y;
}

// dx = dy W + s (dy B) A; dA = s Σ (dy B)ᵀ x; dB = s Σ dyᵀ (x Aᵀ); W frozen: dw left empty.
LoraGrads lora_backward(const Array& dy, const Array& x, const Array& w, const Array& a, const Array& b, double alpha) {
  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0], rows = x.size() / in;
  const double s = alpha / double(r);
  LoraGrads g;
  g.dx = Array::from_shape(x.shape());
  g.da = Array::from_shape(a.shape());
  g.db = Array::from_shape(b.shape());
  g.dx.fill(0.0), g.da.fill(0.0), g.db.fill(0.0);
  std::vector<double> xa(r), dyb(r);
  for (std::size_t row = 0; row < rows; ++row) {
    const double* xr = x.data() + row * in;
    const double* dyr = dy.data() + row * out;
    for (std::size_t k = 0; k < r; ++k) {
      xa[k] = dyb[k] = 0;
      for (std::size_t i = 0; i < in; ++i) xa[k] += xr[i] * a(k, i);
      for (std::size_t o = 0; o < out; ++o) dyb[k] += dyr[o] * b(o, k);
    }
    for (std::size_t i = 0; i < in; ++i) {
      double dx = 0;
      for (std::size_t o = 0; o < out; ++o) dx += dyr[o] * w(o, i);
      for (std::size_t k = 0; k < r; ++k) {
        dx += s * dyb[k] * a(k, i);
        g.da(k, i) += s * dyb[k] * xr[i];
      }
      g.dx.data()[row * in + i] = dx;
    }
    for (std::size_t o = 0; o < out; ++o)
      for (std::size_t k = 0; k < r; ++k) g.db(o, k) += s * dyr[o] * xa[k];
  }
  return g;
}

// W' = W + s B A.
Array lora_merge(const Array& w, const Array& a, const Array& b, double alpha) {
  const std::size_t in = w.shape()[1], out = w.shape()[0], r = a.shape()[0];
  const double s = alpha / double(r);
  Array merged = w;
  for (std::size_t o = 0; o < out; ++o)
    for (std::size_t i = 0; i < in; ++i)
      for (std::size_t k = 0; k < r; ++k) merged(o, i) += s * b(o, k) * a(k, i);
  return merged;
}
