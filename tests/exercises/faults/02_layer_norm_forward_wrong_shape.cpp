// Learner code that returns the wrong shape (the mean of each row, not the normalized row): the report
// names the shapes.
// exercise: layer_norm_forward
#include <cmath>
#include <string>

#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  (void)gamma, (void)beta, (void)eps;
  return xt::mean(x, {x.dimension() - 1});
}
