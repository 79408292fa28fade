#include "tapegrad/ops/softmax.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/reduce.hpp"

namespace tapegrad {

namespace {

std::size_t checked_axis(const char* op, const Tensor& x, long axis) {
  if (x.dim() == 0) throw ShapeError(std::string(op) + ": needs at least one dimension, got a 0-d tensor");
  return normalize_axes(op, {axis}, x.shape())[0];
}

// x − max(x) along the axis: exp() of it cannot overflow.
Array shifted(const Array& x, std::size_t axis) {
  return x - xt::amax(x, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
}

// The forward values. An empty x gives an empty y (and an empty dy an empty dx, in the
// backward functions): the reducers are skipped then, because xtensor 0.24's immediate
// reducers (amax, sum) read through a null pointer on empty input.
Array softmax_values(const Array& x, std::size_t axis) {
  if (x.size() == 0) return Array::from_shape(x.shape());
  Array ex = xt::exp(shifted(x, axis));
  return ex / xt::sum(ex, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
}

Array log_softmax_values(const Array& x, std::size_t axis) {
  if (x.size() == 0) return Array::from_shape(x.shape());
  Array s = shifted(x, axis);
  return s - xt::log(xt::sum(xt::exp(s), {axis}, xt::keep_dims | xt::evaluation_strategy::immediate));
}

}  // namespace

// softmax:  y = exp(x − m) / Σ exp(x − m)  (m = max along the axis);
//           dx = y ⊙ (dy − Σ(dy ⊙ y)), the sums along the axis
TAPEGRAD_BACKWARD void softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis) {
  if (dy.size() == 0) return x.accumulate_grad(dy);  // empty, as x (see softmax_values)
  Array dot = xt::sum(dy * y, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  x.accumulate_grad(y * (dy - dot));
}

Tensor softmax(const Tensor& x, long axis) {
  const std::size_t ax = checked_axis("softmax", x, axis);
  return record("softmax", {x}, softmax_values(x.value(), ax), [ax](const Array& dy, const TapeEntry& e) {
    softmax_backward(dy, e.inputs[0], e.output.value(), ax);
  });
}

// log_softmax:  y = (x − m) − log Σ exp(x − m);
//               dx = dy − softmax(x) ⊙ Σ dy = dy − exp(y) ⊙ Σ dy, the sums along the axis
TAPEGRAD_BACKWARD void log_softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis) {
  if (dy.size() == 0) return x.accumulate_grad(dy);  // empty, as x (see softmax_values)
  Array total = xt::sum(dy, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  x.accumulate_grad(dy - xt::exp(y) * total);
}

Tensor log_softmax(const Tensor& x, long axis) {
  const std::size_t ax = checked_axis("log_softmax", x, axis);
  return record("log_softmax", {x}, log_softmax_values(x.value(), ax), [ax](const Array& dy, const TapeEntry& e) {
    log_softmax_backward(dy, e.inputs[0], e.output.value(), ax);
  });
}

}  // namespace tapegrad
