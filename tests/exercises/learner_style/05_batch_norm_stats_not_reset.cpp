// BatchNorm on loops, feature by feature, with the statistics declared once outside the loop over
// features (never reset): each feature's mean and variance start from the previous feature's.
#include <cmath>

#include "tapegrad_grader/exercise.hpp"

namespace {
struct Stats {
  std::vector<double> mean, sigma;
};
Stats feature_stats(const tapegrad::Array& x, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  Stats s;
  double mean = 0, var = 0;  // the mistake
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t r = 0; r < M; ++r) mean += x.data()[r * C + c];
    mean /= M;
    for (std::size_t r = 0; r < M; ++r) var += (x.data()[r * C + c] - mean) * (x.data()[r * C + c] - mean);
    var /= M;
    s.mean.push_back(mean), s.sigma.push_back(std::sqrt(var + eps));
  }
  return s;
}
}  // namespace

tapegrad::Array batch_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  const std::size_t C = x.shape().back();
  const Stats s = feature_stats(x, eps);
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i)
    y.data()[i] = gamma(i % C) * (x.data()[i] - s.mean[i % C]) / s.sigma[i % C] + beta(i % C);
  return y;
}

tapegrad::exercise::NormGrads batch_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& gamma, double eps) {
  const std::size_t C = x.shape().back(), M = x.size() / C;
  const Stats s = feature_stats(x, eps);
  tapegrad::Array dx = tapegrad::Array::from_shape(x.shape());
  tapegrad::Array dgamma = xt::zeros<double>({C}), dbeta = xt::zeros<double>({C});
  for (std::size_t c = 0; c < C; ++c) {
    double mean_g = 0, mean_gx = 0;
    for (std::size_t r = 0; r < M; ++r) {
      const std::size_t i = r * C + c;
      const double xhat = (x.data()[i] - s.mean[c]) / s.sigma[c];
      mean_g += gamma(c) * dy.data()[i] / M, mean_gx += gamma(c) * dy.data()[i] * xhat / M;
      dgamma(c) += dy.data()[i] * xhat, dbeta(c) += dy.data()[i];
    }
    for (std::size_t r = 0; r < M; ++r) {
      const std::size_t i = r * C + c;
      const double xhat = (x.data()[i] - s.mean[c]) / s.sigma[c];
      dx.data()[i] = (gamma(c) * dy.data()[i] - mean_g - xhat * mean_gx) / s.sigma[c];
    }
  }
  return {dx, dgamma, dbeta};
}
