#pragma once
// Elementwise arithmetic with NumPy broadcasting. Each backward sums the
// gradient back to its input's shape (Tensor::accumulate_grad does that).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// The broadcast result shape of a and b, or a ShapeError naming `op`.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& a);

// With a plain number on one side.
Tensor add(const Tensor& a, double s);
Tensor mul(const Tensor& a, double s);
Tensor div(double s, const Tensor& a);  // s / a

Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor pow(const Tensor& a, double exponent);

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator+(const Tensor& a, double s) { return add(a, s); }
inline Tensor operator+(double s, const Tensor& a) { return add(a, s); }
inline Tensor operator-(const Tensor& a, double s) { return add(a, -s); }
inline Tensor operator-(double s, const Tensor& a) { return add(neg(a), s); }
inline Tensor operator*(const Tensor& a, double s) { return mul(a, s); }
inline Tensor operator*(double s, const Tensor& a) { return mul(a, s); }
inline Tensor operator/(const Tensor& a, double s) { return mul(a, 1.0 / s); }
inline Tensor operator/(double s, const Tensor& a) { return div(s, a); }

// ---- backward rules (the math is above each one in elementwise.cpp) ----
// Each adds dL/d(input) to the inputs that require grad, given dy = dL/dy and
// what the op saved (y is the op's output).
void add_backward(const Array& dy, const Tensor& a, const Tensor& b);
void sub_backward(const Array& dy, const Tensor& a, const Tensor& b);
void mul_backward(const Array& dy, const Tensor& a, const Tensor& b);
void div_backward(const Array& dy, const Tensor& a, const Tensor& b);
void neg_backward(const Array& dy, const Tensor& a);
void add_scalar_backward(const Array& dy, const Tensor& a);
void mul_scalar_backward(const Array& dy, const Tensor& a, double s);
void rdiv_scalar_backward(const Array& dy, const Tensor& a, const Array& y);
void exp_backward(const Array& dy, const Tensor& a, const Array& y);
void log_backward(const Array& dy, const Tensor& a);
void sqrt_backward(const Array& dy, const Tensor& a, const Array& y);
void pow_backward(const Array& dy, const Tensor& a, double exponent);

}  // namespace tapegrad
