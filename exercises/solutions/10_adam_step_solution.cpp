// Reference solution of exercise 10 (exercises/10_adam_step.cpp).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AdamState;

// t = step + 1; m = β1 m + (1 − β1) g; v = β2 v + (1 − β2) g²;
// p −= lr · (m / (1 − β1^t)) / (sqrt(v / (1 − β2^t)) + ε).
AdamState adam_step(const AdamState& state, const Array& grad, double lr, double beta1, double beta2, double eps) {
  AdamState s = state;
  s.step = state.step + 1;
  const double bc1 = 1 - std::pow(beta1, double(s.step)), bc2 = 1 - std::pow(beta2, double(s.step));
  for (std::size_t i = 0; i < s.param.size(); ++i) {
    const double g = grad.data()[i];
    s.m.data()[i] = beta1 * s.m.data()[i] + (1 - beta1) * g;
    s.v.data()[i] = beta2 * s.v.data()[i] + (1 - beta2) * g * g;
    s.param.data()[i] -= lr * (s.m.data()[i] / bc1) / (std::sqrt(s.v.data()[i] / bc2) + eps);
  }
  return s;
}
