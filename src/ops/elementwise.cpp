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
    out[i] = std::max(da, db);
  }
  return out;
}

// ---- a + b:  da = dy,  db = dy ----
Tensor add(const Tensor& a, const Tensor& b) {
  broadcast_shapes("add", a.shape(), b.shape());
  return record("add", {a, b}, a.value() + b.value(), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy);
    e.inputs[1].accumulate_grad(dy);
  });
}

// ---- a - b:  da = dy,  db = -dy ----
Tensor sub(const Tensor& a, const Tensor& b) {
  broadcast_shapes("sub", a.shape(), b.shape());
  return record("sub", {a, b}, a.value() - b.value(), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy);
    if (e.inputs[1].requires_grad()) e.inputs[1].accumulate_grad(-dy);
  });
}

// ---- a * b:  da = dy * b,  db = dy * a ----
Tensor mul(const Tensor& a, const Tensor& b) {
  broadcast_shapes("mul", a.shape(), b.shape());
  return record("mul", {a, b}, a.value() * b.value(), [](const Array& dy, const TapeEntry& e) {
    const Tensor& a = e.inputs[0];
    const Tensor& b = e.inputs[1];
    if (a.requires_grad()) a.accumulate_grad(dy * b.value());
    if (b.requires_grad()) b.accumulate_grad(dy * a.value());
  });
}

// ---- a / b:  da = dy / b,  db = -dy * a / b^2 ----
Tensor div(const Tensor& a, const Tensor& b) {
  broadcast_shapes("div", a.shape(), b.shape());
  return record("div", {a, b}, a.value() / b.value(), [](const Array& dy, const TapeEntry& e) {
    const Tensor& a = e.inputs[0];
    const Tensor& b = e.inputs[1];
    if (a.requires_grad()) a.accumulate_grad(dy / b.value());
    if (b.requires_grad()) b.accumulate_grad(-dy * a.value() / (b.value() * b.value()));
  });
}

// ---- -a:  da = -dy ----
Tensor neg(const Tensor& a) {
  return record("neg", {a}, -a.value(),
                [](const Array& dy, const TapeEntry& e) { e.inputs[0].accumulate_grad(-dy); });
}

// ---- a + s:  da = dy ----
Tensor add(const Tensor& a, double s) {
  return record("add_scalar", {a}, a.value() + s,
                [](const Array& dy, const TapeEntry& e) { e.inputs[0].accumulate_grad(dy); });
}

// ---- a * s:  da = dy * s ----
Tensor mul(const Tensor& a, double s) {
  return record("mul_scalar", {a}, a.value() * s,
                [s](const Array& dy, const TapeEntry& e) { e.inputs[0].accumulate_grad(dy * s); });
}

// ---- s / a:  da = -dy * s / a^2 = -dy * y / a ----
Tensor div(double s, const Tensor& a) {
  return record("rdiv_scalar", {a}, s / a.value(), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(-dy * e.output.value() / e.inputs[0].value());
  });
}

// ---- exp(a):  da = dy * exp(a) = dy * y ----
Tensor exp(const Tensor& a) {
  return record("exp", {a}, xt::exp(a.value()), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy * e.output.value());
  });
}

// ---- log(a):  da = dy / a ----
Tensor log(const Tensor& a) {
  return record("log", {a}, xt::log(a.value()), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy / e.inputs[0].value());
  });
}

// ---- sqrt(a):  da = dy / (2 sqrt(a)) = dy / (2 y) ----
Tensor sqrt(const Tensor& a) {
  return record("sqrt", {a}, xt::sqrt(a.value()), [](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy / (2.0 * e.output.value()));
  });
}

// ---- a^p:  da = dy * p * a^(p-1) ----
Tensor pow(const Tensor& a, double p) {
  return record("pow", {a}, xt::pow(a.value(), p), [p](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(dy * p * xt::pow(e.inputs[0].value(), p - 1.0));
  });
}

}  // namespace tapegrad
