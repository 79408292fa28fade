// Learner code that never returns (an unsigned counter that never goes below 0): the grader stops it
// after the timeout, reports it, and lives on.
// exercise: layer_norm_forward
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  (void)gamma, (void)beta, (void)eps;
  volatile double sum = 0;
  for (std::size_t i = x.size() - 1; i >= 0; --i) sum = sum + 1;  // i >= 0 is always true
  return x;
}
