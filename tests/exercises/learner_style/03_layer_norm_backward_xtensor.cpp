// LayerNorm's backward in xtensor expressions, as a learner writes it:
// dx = (g − mean(g) − x̂·mean(g·x̂)) / σ with g = γ·dy; dγ = Σ_rows dy·x̂, dβ = Σ_rows dy.
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

tapegrad::exercise::NormGrads layer_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& gamma, double eps) {
  const std::size_t last = x.dimension() - 1, N = x.shape()[last], rows = x.size() / N;
  tapegrad::Array mu = xt::mean(x, {last}, xt::keep_dims);
  tapegrad::Array centered = x - mu;
  tapegrad::Array var = xt::mean(centered * centered, {last}, xt::keep_dims);
  tapegrad::Array sigma = xt::sqrt(var + eps);
  tapegrad::Array xhat = centered / sigma;
#if defined(SLIP_GAMMA_NOT_APPLIED)
  (void)gamma;
  tapegrad::Array g = dy;
#else
  tapegrad::Array g = dy * gamma;
#endif
#if defined(SLIP_SUM_INSTEAD_OF_MEAN)
  tapegrad::Array mean_g = xt::sum(g, {last}, xt::keep_dims);
  tapegrad::Array mean_gx = xt::sum(g * xhat, {last}, xt::keep_dims);
#else
  tapegrad::Array mean_g = xt::mean(g, {last}, xt::keep_dims);
  tapegrad::Array mean_gx = xt::mean(g * xhat, {last}, xt::keep_dims);
#endif
#if defined(SLIP_MEAN_TERM_MISSING)
  tapegrad::Array dx = (g - xhat * mean_gx) / sigma;
#elif defined(SLIP_PROJECTION_TERM_MISSING)
  tapegrad::Array dx = (g - mean_g) / sigma;
#elif defined(SLIP_PROJECTION_SIGN_FLIPPED)
  tapegrad::Array dx = (g - mean_g + xhat * mean_gx) / sigma;
#elif defined(SLIP_SIGMA_DIVISION_MISSING)
  tapegrad::Array dx = g - mean_g - xhat * mean_gx;
#else
  tapegrad::Array dx = (g - mean_g - xhat * mean_gx) / sigma;
#endif
  tapegrad::Array dy_xhat = dy * xhat;
#if defined(SLIP_DGAMMA_WRONG_AXIS)
  tapegrad::Array dgamma = xt::sum(dy_xhat, {0});  // axis 0 only: right at rank 2 alone
#else
  dy_xhat.reshape({rows, N});
  tapegrad::Array dgamma = xt::sum(dy_xhat, {0});
#endif
  tapegrad::Array dy_rows = dy;
  dy_rows.reshape({rows, N});
  tapegrad::Array dbeta = xt::sum(dy_rows, {0});
  return {dx, dgamma, dbeta};
}
