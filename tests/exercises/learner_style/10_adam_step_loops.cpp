// One Adam step on loops as a learner writes it, with the slips the statement invites:
// SLIP_OLD_MOMENTS (the update before m and v), SLIP_STEP_NOT_INCREMENTED (t in a local only),
// SLIP_ABS_INSTEAD_OF_SQUARE (|g| for g²).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::exercise::AdamState adam_step(const tapegrad::exercise::AdamState& state, const tapegrad::Array& grad,
                                        double lr, double beta1, double beta2, double eps) {
  tapegrad::exercise::AdamState s = state;
#if defined(SLIP_STEP_NOT_INCREMENTED)
  const long t = state.step + 1;  // s.step is never stored
#else
  s.step = state.step + 1;
  const long t = s.step;
#endif
  const double bc1 = 1 - std::pow(beta1, double(t)), bc2 = 1 - std::pow(beta2, double(t));
  for (std::size_t i = 0; i < s.param.size(); ++i) {
    const double g = grad.data()[i];
#if defined(SLIP_OLD_MOMENTS)
    s.param.data()[i] -= lr * (s.m.data()[i] / bc1) / (std::sqrt(s.v.data()[i] / bc2) + eps);
#endif
    s.m.data()[i] = beta1 * s.m.data()[i] + (1 - beta1) * g;
#if defined(SLIP_ABS_INSTEAD_OF_SQUARE)
    s.v.data()[i] = beta2 * s.v.data()[i] + (1 - beta2) * std::abs(g);
#else
    s.v.data()[i] = beta2 * s.v.data()[i] + (1 - beta2) * g * g;
#endif
#if !defined(SLIP_OLD_MOMENTS)
    s.param.data()[i] -= lr * (s.m.data()[i] / bc1) / (std::sqrt(s.v.data()[i] / bc2) + eps);
#endif
  }
  return s;
}
