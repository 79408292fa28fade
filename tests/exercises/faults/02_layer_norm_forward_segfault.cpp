// Learner code that crashes (writes through a null pointer): the grader reports the signal and lives on.
// exercise: layer_norm_forward
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  (void)gamma, (void)beta, (void)eps;
  volatile double* p = nullptr;
  *p = x(0);
  return x;
}
