// Learner code that throws: the grader reports the exception's message and lives on.
// exercise: layer_norm_forward
#include <cmath>
#include <stdexcept>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  (void)gamma, (void)beta, (void)eps;
  if (x.dimension() > 0) throw std::runtime_error("my layer_norm_forward cannot handle this yet");
  return x;
}
