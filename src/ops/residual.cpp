// residual and add_and_norm: compositions of add and layer_norm, so their backward
// is those ops' (no backward of their own).
#include "tapegrad/ops/residual.hpp"

#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad {

Tensor residual(const Tensor& x, const Tensor& fx) {
  if (x.shape() != fx.shape())
    throw ShapeError("residual: x " + x.label() + " and F(x) " + fx.label() +
                     " must have the same shape; the sublayer changed it");
  return add(x, fx);
}

Tensor add_and_norm(const Tensor& x, const Tensor& fx, const Tensor& weight, const Tensor& bias, double eps) {
  if (x.dim() == 0) throw ShapeError("add_and_norm: expected at least 1-D input, got " + x.label());
  return layer_norm(residual(x, fx), {x.shape().back()}, weight, bias, eps);
}

}  // namespace tapegrad
