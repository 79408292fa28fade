// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: adam_step
// mistake: step_off_by_one (the bias correction with the old step)
// The grader must fail it and diagnose diagnosis=step_off_by_one.
#include <cmath>
#include <string>

#include "tapegrad/exercise.hpp"

// t = step + 1; m = β1 m + (1 − β1) g; v = β2 v + (1 − β2) g²;
// p −= lr · (m / (1 − β1^t)) / (sqrt(v / (1 − β2^t)) + ε).
tapegrad::exercise::AdamState adam_step(const tapegrad::exercise::AdamState& state, const tapegrad::Array& grad,
                                        double lr, double beta1, double beta2, double eps) {
  tapegrad::exercise::AdamState s = state;
  s.step = state.step + 1;
  const double bc1 = 1 - std::pow(beta1, double(state.step)), bc2 = 1 - std::pow(beta2, double(state.step));
  for (std::size_t i = 0; i < s.param.size(); ++i) {
    const double g = grad.data()[i];
    s.m.data()[i] = beta1 * s.m.data()[i] + (1 - beta1) * g;
    s.v.data()[i] = beta2 * s.v.data()[i] + (1 - beta2) * g * g;
    s.param.data()[i] -= lr * (s.m.data()[i] / bc1) / (std::sqrt(s.v.data()[i] / bc2) + eps);
  }
  return s;
}
