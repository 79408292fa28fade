#include "tapegrad/optim/clip.hpp"

#include <algorithm>
#include <cmath>

#include "../argument_check.hpp"

namespace tapegrad::optim {

double grad_norm(const std::vector<Tensor>& params) {
  double sum_of_squared_norms = 0.0;
  for (const Tensor& p : params) {
    if (!p.has_grad()) continue;
    double squares = 0.0;
    for (double g : p.grad()) squares += g * g;
    const double norm = std::sqrt(squares);  // ‖g_p‖, then squared again: PyTorch's order
    sum_of_squared_norms += norm * norm;
  }
  return std::sqrt(sum_of_squared_norms);
}

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite) {
  detail::require(max_norm >= 0.0, "clip_grad_norm_", "max_norm", max_norm, "max_norm >= 0");
  const double total = grad_norm(params);
  if (error_if_nonfinite && !std::isfinite(total))
    throw Error("clip_grad_norm_: the total norm of the gradients is " + detail::num(total) +
                ", so they cannot be clipped (a gradient holds inf or nan)");
  const double coef = std::min(max_norm / (total + 1e-6), 1.0);
  for (Tensor p : params)
    if (p.has_grad()) p.mutable_grad() *= coef;
  return total;
}

}  // namespace tapegrad::optim
