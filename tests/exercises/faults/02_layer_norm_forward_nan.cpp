// Learner code that returns NaN (0/0 on the first element of every row): the report names the positions.
// exercise: layer_norm_forward
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  (void)gamma, (void)beta, (void)eps;
  tapegrad::Array y = x;
  const std::size_t N = x.shape().back();
  for (std::size_t i = 0; i < y.size(); i += N) y.data()[i] = 0.0 / (x.data()[i] - x.data()[i]);
  return y;
}
