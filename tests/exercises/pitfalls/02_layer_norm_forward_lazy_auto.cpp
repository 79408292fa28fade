// A C++ pitfall the grader names at its line: an xtensor expression held in `auto` (lazy), then
// broadcast inside a larger expression.
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t last = x.dimension() - 1;
  auto mu = xt::mean(x, {last}, xt::keep_dims);
  tapegrad::Array c = x - mu;  // the line the report names: 12
  tapegrad::Array var = xt::mean(c * c, {last}, xt::keep_dims);
  tapegrad::Array y = gamma * c / xt::sqrt(var + eps) + beta;
  return y;
}
