#include "tapegrad/ops/elementwise.hpp"

#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {  // align from the right, like NumPy
    const std::size_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::size_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast together: aligned from the right, dimension " + std::to_string(i) +
                       " is " + std::to_string(da) + " vs " + std::to_string(db) + "; each pair must be equal or 1");
    out[i] = da == 1 ? db : da;  // (not max: a 0 against a 1 gives 0)
  }
  return out;
}

// Each backward below adds to the gradients of the inputs that require grad;
// accumulate_grad sums a broadcast gradient back to the input's shape.

// add:  y = a + b;  da = dy,  db = dy
TAPEGRAD_BACKWARD void add_backward(const Array& dy, const Tensor& a, const Tensor& b) {
  a.accumulate_grad(dy);
  b.accumulate_grad(dy);
}

Tensor add(const Tensor& a, const Tensor& b) {
  broadcast_shapes("add", a.shape(), b.shape());
  return record("add", {a, b}, a.value() + b.value(),
                [](const Array& dy, const TapeEntry& e) { add_backward(dy, e.inputs[0], e.inputs[1]); });
}

// sub:  y = a − b;  da = dy,  db = −dy
TAPEGRAD_BACKWARD void sub_backward(const Array& dy, const Tensor& a, const Tensor& b) {
  a.accumulate_grad(dy);
  if (b.requires_grad()) b.accumulate_grad(-dy);
}

Tensor sub(const Tensor& a, const Tensor& b) {
  broadcast_shapes("sub", a.shape(), b.shape());
  return record("sub", {a, b}, a.value() - b.value(),
                [](const Array& dy, const TapeEntry& e) { sub_backward(dy, e.inputs[0], e.inputs[1]); });
}

// mul:  y = a ⊙ b;  da = dy ⊙ b,  db = dy ⊙ a
TAPEGRAD_BACKWARD void mul_backward(const Array& dy, const Tensor& a, const Tensor& b) {
  if (a.requires_grad()) a.accumulate_grad(dy * b.value());
  if (b.requires_grad()) b.accumulate_grad(dy * a.value());
}

Tensor mul(const Tensor& a, const Tensor& b) {
  broadcast_shapes("mul", a.shape(), b.shape());
  return record("mul", {a, b}, a.value() * b.value(),
                [](const Array& dy, const TapeEntry& e) { mul_backward(dy, e.inputs[0], e.inputs[1]); });
}

// div:  y = a / b;  da = dy / b,  db = −dy ⊙ a / b²
TAPEGRAD_BACKWARD void div_backward(const Array& dy, const Tensor& a, const Tensor& b) {
  if (a.requires_grad()) a.accumulate_grad(dy / b.value());
  if (b.requires_grad()) b.accumulate_grad(-dy * a.value() / (b.value() * b.value()));
}

Tensor div(const Tensor& a, const Tensor& b) {
  broadcast_shapes("div", a.shape(), b.shape());
  return record("div", {a, b}, a.value() / b.value(),
                [](const Array& dy, const TapeEntry& e) { div_backward(dy, e.inputs[0], e.inputs[1]); });
}

// neg:  y = −a;  da = −dy
TAPEGRAD_BACKWARD void neg_backward(const Array& dy, const Tensor& a) { a.accumulate_grad(-dy); }

Tensor neg(const Tensor& a) {
  return record("neg", {a}, -a.value(), [](const Array& dy, const TapeEntry& e) { neg_backward(dy, e.inputs[0]); });
}

// add_scalar:  y = a + s;  da = dy
TAPEGRAD_BACKWARD void add_scalar_backward(const Array& dy, const Tensor& a) { a.accumulate_grad(dy); }

Tensor add(const Tensor& a, double s) {
  return record("add_scalar", {a}, a.value() + s,
                [](const Array& dy, const TapeEntry& e) { add_scalar_backward(dy, e.inputs[0]); });
}

// mul_scalar:  y = a · s;  da = dy · s
TAPEGRAD_BACKWARD void mul_scalar_backward(const Array& dy, const Tensor& a, double s) {
  a.accumulate_grad(dy * s);
}

Tensor mul(const Tensor& a, double s) {
  return record("mul_scalar", {a}, a.value() * s,
                [s](const Array& dy, const TapeEntry& e) { mul_scalar_backward(dy, e.inputs[0], s); });
}

// rdiv_scalar:  y = s / a;  da = −dy · s / a² = −dy ⊙ y / a
TAPEGRAD_BACKWARD void rdiv_scalar_backward(const Array& dy, const Tensor& a, const Array& y) {
  a.accumulate_grad(-dy * y / a.value());
}

Tensor div(double s, const Tensor& a) {
  return record("rdiv_scalar", {a}, s / a.value(), [](const Array& dy, const TapeEntry& e) {
    rdiv_scalar_backward(dy, e.inputs[0], e.output.value());
  });
}

// exp:  y = eᵃ;  da = dy ⊙ eᵃ = dy ⊙ y
TAPEGRAD_BACKWARD void exp_backward(const Array& dy, const Tensor& a, const Array& y) { a.accumulate_grad(dy * y); }

Tensor exp(const Tensor& a) {
  return record("exp", {a}, xt::exp(a.value()),
                [](const Array& dy, const TapeEntry& e) { exp_backward(dy, e.inputs[0], e.output.value()); });
}

// log:  y = ln a;  da = dy / a
TAPEGRAD_BACKWARD void log_backward(const Array& dy, const Tensor& a) { a.accumulate_grad(dy / a.value()); }

Tensor log(const Tensor& a) {
  return record("log", {a}, xt::log(a.value()),
                [](const Array& dy, const TapeEntry& e) { log_backward(dy, e.inputs[0]); });
}

// sqrt:  y = √a;  da = dy / (2√a) = dy / (2y)
TAPEGRAD_BACKWARD void sqrt_backward(const Array& dy, const Tensor& a, const Array& y) {
  a.accumulate_grad(dy / (2.0 * y));
}

Tensor sqrt(const Tensor& a) {
  return record("sqrt", {a}, xt::sqrt(a.value()),
                [](const Array& dy, const TapeEntry& e) { sqrt_backward(dy, e.inputs[0], e.output.value()); });
}

// pow:  y = aᵖ;  da = dy · p · aᵖ⁻¹.  For p = 0, y = 1 is constant and da = 0, as in
// PyTorch (the formula would give 0 · 0⁻¹ = NaN at a = 0).
TAPEGRAD_BACKWARD void pow_backward(const Array& dy, const Tensor& a, double p) {
  if (p == 0.0) return a.accumulate_grad(Array(xt::zeros<double>(a.shape())));
  a.accumulate_grad(dy * p * xt::pow(a.value(), p - 1.0));
}

Tensor pow(const Tensor& a, double p) {
  return record("pow", {a}, xt::pow(a.value(), p),
                [p](const Array& dy, const TapeEntry& e) { pow_backward(dy, e.inputs[0], p); });
}

}  // namespace tapegrad
