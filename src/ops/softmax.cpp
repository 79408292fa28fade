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

}  // namespace

// softmax:  y = exp(x − m) / Σ exp(x − m)  (m = max along the axis);
//           dx = y ⊙ (dy − Σ(dy ⊙ y)), the sums along the axis
TAPEGRAD_BACKWARD void softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis) {
  Array dot = xt::sum(dy * y, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  x.accumulate_grad(y * (dy - dot));
}

Tensor softmax(const Tensor& x, long axis) {
  const std::size_t ax = checked_axis("softmax", x, axis);
  Array ex = xt::exp(shifted(x.value(), ax));
  Array y = ex / xt::sum(ex, {ax}, xt::keep_dims | xt::evaluation_strategy::immediate);
  return record("softmax", {x}, std::move(y), [ax](const Array& dy, const TapeEntry& e) {
    softmax_backward(dy, e.inputs[0], e.output.value(), ax);
  });
}

// log_softmax:  y = (x − m) − log Σ exp(x − m);
//               dx = dy − softmax(x) ⊙ Σ dy = dy − exp(y) ⊙ Σ dy, the sums along the axis
TAPEGRAD_BACKWARD void log_softmax_backward(const Array& dy, const Tensor& x, const Array& y, std::size_t axis) {
  Array total = xt::sum(dy, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  x.accumulate_grad(dy - xt::exp(y) * total);
}

Tensor log_softmax(const Tensor& x, long axis) {
  const std::size_t ax = checked_axis("log_softmax", x, axis);
  Array s = shifted(x.value(), ax);
  Array y = s - xt::log(xt::sum(xt::exp(s), {ax}, xt::keep_dims | xt::evaluation_strategy::immediate));
  return record("log_softmax", {x}, std::move(y), [ax](const Array& dy, const TapeEntry& e) {
    log_softmax_backward(dy, e.inputs[0], e.output.value(), ax);
  });
}

}  // namespace tapegrad
