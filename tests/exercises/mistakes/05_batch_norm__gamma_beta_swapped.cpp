// A planted mistake (written by tests/exercises/plant_mistakes.py from the reference solution):
// exercise: batch_norm
// mistake: gamma_beta_swapped (β x̂ + γ)
// The grader must fail it and diagnose diagnosis=gamma_beta_swapped.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad/exercise.hpp"

// Per feature c (the last axis): μ_c, σ²_c over every row (all other axes), biased.
tapegrad::Array batch_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (std::size_t r = 0; r < M; ++r) mean += x.data()[r * C + c];
    mean /= M;
    for (std::size_t r = 0; r < M; ++r) var += (x.data()[r * C + c] - mean) * (x.data()[r * C + c] - mean);
    var /= M;
    const double sigma = std::sqrt(var + eps);
    for (std::size_t r = 0; r < M; ++r) y.data()[r * C + c] = beta(c) * (x.data()[r * C + c] - mean) / sigma + gamma(c);
  }
  return y;
}

// The same formula as LayerNorm's, with the means over the rows: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.
tapegrad::exercise::NormGrads batch_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
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
