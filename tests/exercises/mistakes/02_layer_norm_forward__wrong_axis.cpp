// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: layer_norm_forward
// mistake: wrong_axis (statistics over the rows (BatchNorm's axis))
// The grader must fail it and diagnose diagnosis=wrong_axis.
#include <cmath>
#include <string>

#include "tapegrad/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t j = 0; j < N; ++j) {  // statistics of each column, over the rows
    double mean = 0, var = 0;
    for (std::size_t r = 0; r < rows; ++r) mean += x.data()[r * N + j];
    mean /= rows;
    for (std::size_t r = 0; r < rows; ++r) var += (x.data()[r * N + j] - mean) * (x.data()[r * N + j] - mean);
    var /= rows;
    for (std::size_t r = 0; r < rows; ++r)
      y.data()[r * N + j] = gamma(j) * (x.data()[r * N + j] - mean) / std::sqrt(var + eps) + beta(j);
  }
  return y;
}
