// RMSNorm in xtensor expressions, as a learner writes it: y = γ·x/rms, rms = sqrt(mean(x²) + ε);
// dx = (g − x̂·mean(g·x̂)) / rms with g = γ·dy, x̂ = x/rms (the hint's formula, typed in); dγ = Σ_rows dy·x̂.
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

namespace {
// rms of each row, kept as a column: (..., 1)
tapegrad::Array rms_of_rows(const tapegrad::Array& x, double eps) {
  const std::size_t last = x.dimension() - 1;
  tapegrad::Array ms = xt::mean(x * x, {last}, xt::keep_dims);
#if defined(SLIP_EPS_OUTSIDE_SQRT)
  return xt::sqrt(ms) + eps;
#else
  return xt::sqrt(ms + eps);
#endif
}
}  // namespace

tapegrad::Array rms_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma, double eps) {
  tapegrad::Array rms = rms_of_rows(x, eps);
  return gamma * (x / rms);
}

tapegrad::exercise::NormGrads rms_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                const tapegrad::Array& gamma, double eps) {
  const std::size_t last = x.dimension() - 1, N = x.shape()[last], rows = x.size() / N;
  tapegrad::Array rms = rms_of_rows(x, eps);
  tapegrad::Array xhat = x / rms;
  tapegrad::Array g = dy * gamma;
#if defined(SLIP_SUM_INSTEAD_OF_MEAN)
  tapegrad::Array mean_gx = xt::sum(g * xhat, {last}, xt::keep_dims);
#else
  tapegrad::Array mean_gx = xt::mean(g * xhat, {last}, xt::keep_dims);
#endif
#if defined(SLIP_PROJECTION_TERM_MISSING)
  tapegrad::Array dx = g / rms;
#elif defined(SLIP_PROJECTION_SIGN_FLIPPED)
  tapegrad::Array dx = (g + xhat * mean_gx) / rms;
#elif defined(SLIP_SIGMA_DIVISION_MISSING)
  tapegrad::Array dx = g - xhat * mean_gx;
#else
  tapegrad::Array dx = (g - xhat * mean_gx) / rms;
#endif
  tapegrad::Array dy_xhat = dy * xhat;
#if defined(SLIP_DGAMMA_WRONG_AXIS)
  (void)rows;
  tapegrad::Array dgamma = xt::sum(dy_xhat, {last});  // over the features instead of the rows
#elif defined(SLIP_GRADS_NOT_SUMMED)
  (void)rows;
  tapegrad::Array dgamma = dy_xhat;
#else
  dy_xhat.reshape({rows, N});
  tapegrad::Array dgamma = xt::sum(dy_xhat, {0});
#endif
  return {dx, dgamma, {}};
}
