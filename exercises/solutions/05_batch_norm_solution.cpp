// Reference solution of exercise 5 (exercises/05_batch_norm.cpp): training mode, features last.
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

// Per feature c (the last axis): μ_c, σ²_c over every row (all other axes), biased.
Array batch_norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  Array y = Array::from_shape(x.shape());
  for (std::size_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (std::size_t r = 0; r < M; ++r) mean += x.data()[r * C + c];
    mean /= M;
    for (std::size_t r = 0; r < M; ++r) var += (x.data()[r * C + c] - mean) * (x.data()[r * C + c] - mean);
    var /= M;
    const double sigma = std::sqrt(var + eps);
    for (std::size_t r = 0; r < M; ++r) y.data()[r * C + c] = gamma(c) * (x.data()[r * C + c] - mean) / sigma + beta(c);
  }
  return y;
}

// The same formula as LayerNorm's, with the means over the rows: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.
NormGrads batch_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  NormGrads out;
  out.dx = Array::from_shape(x.shape());
  out.dgamma = Array::from_shape({C});
  out.dbeta = Array::from_shape({C});
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
