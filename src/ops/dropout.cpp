#include "tapegrad/ops/dropout.hpp"

#include "tapegrad/autograd/tape.hpp"
#include "../argument_check.hpp"

namespace tapegrad {

namespace {

void check_probability(double p) {
  detail::require(p >= 0.0 && p <= 1.0, "dropout", "p", p, "a drop probability in [0, 1]");
}

}  // namespace

// Entry i is kept when u_i < 1 − p, u_i ~ U[0, 1) (so P(kept) = 1 − p exactly on the
// uniform grid). For p = 1 nothing is kept and the scale is 0, not 1/0.
Array dropout_scaled_mask(const Shape& shape, double p, Generator& gen) {
  check_probability(p);
  const double keep_probability = 1.0 - p;
  const double scale = p == 1.0 ? 0.0 : 1.0 / keep_probability;
  Array mask = Array::from_shape(shape);
  for (double& m : mask) m = gen.uniform() < keep_probability ? scale : 0.0;
  return mask;
}

// dropout:  y = x ⊙ m',  m' = m / (1 − p) the saved scaled mask;  dx = dy ⊙ m'
// (the same mask as the forward: a dropped entry passes no gradient back).
TAPEGRAD_BACKWARD void dropout_backward(const Array& dy, const Tensor& x, const Array& scaled_mask) {
  x.accumulate_grad(dy * scaled_mask);
}

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen) {
  check_probability(p);
  if (!training || p == 0.0) return x;  // identity: nothing recorded, nothing drawn
  Array scaled_mask = dropout_scaled_mask(x.shape(), p, gen);
  Array y = x.value() * scaled_mask;
  return record("dropout", {x}, std::move(y), [scaled_mask = std::move(scaled_mask)](const Array& dy, const TapeEntry& e) {
    dropout_backward(dy, e.inputs[0], scaled_mask);
  });
}

}  // namespace tapegrad
