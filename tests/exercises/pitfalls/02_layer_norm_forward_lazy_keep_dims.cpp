// A C++ pitfall the grader names at its line: a lazy keep_dims reduction broadcast inside a larger
// expression (xtensor 0.24.3 reads past its buffer).
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t last = x.dimension() - 1;
  tapegrad::Array c = x - xt::mean(x, {last}, xt::keep_dims);  // the line the report names: 11
  tapegrad::Array var = xt::mean(c * c, {last}, xt::keep_dims);
  tapegrad::Array y = gamma * c / xt::sqrt(var + eps) + beta;
  return y;
}
