// A correct LayerNorm backward written differently from the reference: xtensor expressions over the
// whole array, through x̂ (dx̂ = γ·dy, then dx = (dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) / σ with keep_dims
// reductions). The grader must pass it.
// exercise: layer_norm_backward
#include <cmath>
#include <string>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "tapegrad_grader/exercise.hpp"

tapegrad::exercise::NormGrads layer_norm_backward(const tapegrad::Array& dy, const tapegrad::Array& x,
                                                  const tapegrad::Array& gamma, double eps) {
  const std::size_t last = x.dimension() - 1;
  const tapegrad::Array mean = xt::mean(x, {last}, xt::keep_dims);
  const tapegrad::Array centred = x - mean;
  const tapegrad::Array var = xt::mean(centred * centred, {last}, xt::keep_dims);
  const tapegrad::Array sigma = xt::sqrt(var + eps);
  const tapegrad::Array xhat = centred / sigma;
  const tapegrad::Array dxhat = dy * gamma;
  const tapegrad::Array mean_dxhat = xt::mean(dxhat, {last}, xt::keep_dims);
  const tapegrad::Array dxhat_xhat = dxhat * xhat;
  const tapegrad::Array mean_dxhat_xhat = xt::mean(dxhat_xhat, {last}, xt::keep_dims);
  const tapegrad::Array dx = (dxhat - mean_dxhat - xhat * mean_dxhat_xhat) / sigma;
  // dγ, dβ: sum over every axis but the last
  tapegrad::Array dyxhat = dy * xhat, dyr = dy;
  const std::size_t N = x.shape().back();
  dyxhat.reshape({x.size() / N, N});
  dyr.reshape({x.size() / N, N});
  return {dx, xt::sum(dyxhat, {0}), xt::sum(dyr, {0})};
}
