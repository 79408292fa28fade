// RMSNorm on loops with mean(x²) declared once, outside the loop over rows (never reset).
#include <cmath>

#include "tapegrad_grader/exercise.hpp"

namespace {
// the mistake: one accumulator for every row
void rms_of_rows(const tapegrad::Array& x, double eps, std::vector<double>& rms) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  double ms = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < N; ++j) ms += x.data()[r * N + j] * x.data()[r * N + j];
    ms /= N;
    rms.push_back(std::sqrt(ms + eps));
  }
}
}  // namespace

tapegrad::Array rms_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma, double eps) {
  const std::size_t N = x.shape().back();
  std::vector<double> rms;
  rms_of_rows(x, eps, rms);
  tapegrad::Array y = tapegrad::Array::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = gamma(i % N) * x.data()[i] / rms[i / N];
  return y;
}

tapegrad::exercise::NormGrads rms_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                const tapegrad::Array& gamma, double eps) {
  const std::size_t N = x.shape().back(), rows = x.size() / N;
  std::vector<double> rms;
  rms_of_rows(x, eps, rms);
  tapegrad::Array dx = tapegrad::Array::from_shape(x.shape());
  tapegrad::Array dgamma = xt::zeros<double>({N});
  for (std::size_t r = 0; r < rows; ++r) {
    double mean_gx = 0;
    for (std::size_t j = 0; j < N; ++j) mean_gx += gamma(j) * dy.data()[r * N + j] * x.data()[r * N + j] / rms[r] / N;
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t i = r * N + j;
      const double xhat = x.data()[i] / rms[r];
      dx.data()[i] = (gamma(j) * dy.data()[i] - xhat * mean_gx) / rms[r];
      dgamma(j) += dy.data()[i] * xhat;
    }
  }
  return {dx, dgamma, {}};
}
