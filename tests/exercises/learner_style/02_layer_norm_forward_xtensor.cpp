// LayerNorm's forward in xtensor expressions, as a learner writes it.
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
#if defined(SLIP_WRONG_AXIS)
  const std::size_t axis = 0;  // numpy's habit: axis 0 (the last axis only at rank 1)
#else
  const std::size_t axis = x.dimension() - 1;
#endif
  const double n = static_cast<double>(x.shape()[axis]);
  tapegrad::Array mu = xt::mean(x, {axis}, xt::keep_dims);
  tapegrad::Array centered = x - mu;
#if defined(SLIP_UNBIASED_VARIANCE)
  tapegrad::Array var = xt::sum(centered * centered, {axis}, xt::keep_dims) / (n - 1);
#else
  tapegrad::Array var = xt::sum(centered * centered, {axis}, xt::keep_dims) / n;
#endif
#if defined(SLIP_EPS_OUTSIDE_SQRT)
  tapegrad::Array sigma = xt::sqrt(var) + eps;
#else
  tapegrad::Array sigma = xt::sqrt(var + eps);
#endif
#if defined(SLIP_AFFINE_MISSING)
  (void)gamma, (void)beta;
  return centered / sigma;
#else
  return gamma * (centered / sigma) + beta;
#endif
}
