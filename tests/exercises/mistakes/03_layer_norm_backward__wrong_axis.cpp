// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: layer_norm_backward
// mistake: wrong_axis (BatchNorm's backward (over the rows))
// The grader must fail it and diagnose diagnosis=wrong_axis.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad/exercise.hpp"

// The same formula as LayerNorm's, with the means over the rows: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.
tapegrad::exercise::NormGrads layer_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& gamma, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  tapegrad::exercise::NormGrads out;
  out.dx = tapegrad::Array::from_shape(x.shape());
  out.dgamma = tapegrad::Array::from_shape({C});
  out.dbeta = tapegrad::Array::from_shape({C});
  std::vector<double> xhat(M);
  for (std::size_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (std::size_t r = 0; r < M; ++r) mean += x.data()[r * C + c];
    mean /= M;
    for (std::size_t r = 0; r < M; ++r) var += (x.data()[r * C + c] - mean) * (x.data()[r * C + c] - mean);
    var /= M;
    const double sigma = std::sqrt(var + eps);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (std::size_t r = 0; r < M; ++r) {
      xhat[r] = (x.data()[r * C + c] - mean) / sigma;
      sum_dy += dy.data()[r * C + c];
      sum_dy_xhat += dy.data()[r * C + c] * xhat[r];
    }
    out.dgamma(c) = sum_dy_xhat;
    out.dbeta(c) = sum_dy;
    for (std::size_t r = 0; r < M; ++r)
      out.dx.data()[r * C + c] = gamma(c) * (dy.data()[r * C + c] - sum_dy / M - xhat[r] * sum_dy_xhat / M) / sigma;
  }
  return out;
}
