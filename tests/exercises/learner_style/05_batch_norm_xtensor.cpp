// BatchNorm (training mode, features last) in xtensor expressions, as a learner writes it: x as
// (M rows, C features), statistics of each feature over the M rows.
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

namespace {
tapegrad::Array as_rows(const tapegrad::Array& a) {
  tapegrad::Array r = a;
#if !defined(SLIP_WRONG_AXIS)  // the mistake: reduce axis 0 of x as it is (right at rank 2 only)
  r.reshape({a.size() / a.shape().back(), a.shape().back()});
#endif
  return r;
}

struct Normalized {
  tapegrad::Array xhat, sigma;
};

Normalized normalized(const tapegrad::Array& x, double eps) {
  tapegrad::Array xr = as_rows(x);
  const double m = static_cast<double>(xr.shape()[0]);
  tapegrad::Array mu = xt::mean(xr, {0}, xt::keep_dims);
  tapegrad::Array centered = xr - mu;
#if defined(SLIP_UNBIASED_VARIANCE)
  tapegrad::Array var = xt::sum(centered * centered, {0}, xt::keep_dims) / (m - 1);
#else
  tapegrad::Array var = xt::sum(centered * centered, {0}, xt::keep_dims) / m;
#endif
#if defined(SLIP_EPS_OUTSIDE_SQRT)
  tapegrad::Array sigma = xt::sqrt(var) + eps;
#else
  tapegrad::Array sigma = xt::sqrt(var + eps);
#endif
  return {centered / sigma, sigma};
}
}  // namespace

tapegrad::Array batch_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  tapegrad::Array y = gamma * normalized(x, eps).xhat + beta;
  y.reshape(x.shape());
  return y;
}

tapegrad::exercise::NormGrads batch_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& gamma, double eps) {
  const Normalized n = normalized(x, eps);
  tapegrad::Array dyr = as_rows(dy);
  tapegrad::Array g = dyr * gamma;
#if defined(SLIP_SUM_INSTEAD_OF_MEAN)
  tapegrad::Array mean_g = xt::sum(g, {0}, xt::keep_dims);
  tapegrad::Array mean_gx = xt::sum(g * n.xhat, {0}, xt::keep_dims);
#else
  tapegrad::Array mean_g = xt::mean(g, {0}, xt::keep_dims);
  tapegrad::Array mean_gx = xt::mean(g * n.xhat, {0}, xt::keep_dims);
#endif
#if defined(SLIP_MEAN_TERM_MISSING)
  tapegrad::Array dx = (g - n.xhat * mean_gx) / n.sigma;
#elif defined(SLIP_PROJECTION_TERM_MISSING)
  tapegrad::Array dx = (g - mean_g) / n.sigma;
#elif defined(SLIP_PROJECTION_SIGN_FLIPPED)
  tapegrad::Array dx = (g - mean_g + n.xhat * mean_gx) / n.sigma;
#elif defined(SLIP_SIGMA_DIVISION_MISSING)
  tapegrad::Array dx = g - mean_g - n.xhat * mean_gx;
#else
  tapegrad::Array dx = (g - mean_g - n.xhat * mean_gx) / n.sigma;
#endif
  dx.reshape(x.shape());
  tapegrad::Array dy_xhat = dyr * n.xhat;
#if defined(SLIP_DGAMMA_WRONG_AXIS)
  const std::size_t last = x.dimension() - 1;
  dy_xhat.reshape(x.shape());
  tapegrad::Array dgamma = xt::sum(dy_xhat, {last});  // over the features instead of the rows
  tapegrad::Array dbeta = xt::sum(dy, {last});
#else
  tapegrad::Array dgamma = xt::sum(dy_xhat, {0});
  tapegrad::Array dbeta = xt::sum(dyr, {0});
#endif
  return {dx, dgamma, dbeta};
}
