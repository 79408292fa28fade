#include "tapegrad/optim/adam.hpp"

#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

namespace tapegrad::optim {

Adam::Adam(std::vector<Tensor> params, const AdamOptions& options)
    : Adam("Adam", std::move(params), options, false, 0.0) {}

AdamW::AdamW(std::vector<Tensor> params, const AdamOptions& options)
    : Adam("AdamW", std::move(params), options, true, 1e-2) {}

Adam::Adam(std::string name, std::vector<Tensor> params, const AdamOptions& options, bool decoupled,
           double default_weight_decay)
    : Optimizer(std::move(name), std::move(params), options.lr),
      options_(options),
      decoupled_weight_decay_(decoupled) {
  if (!options_.weight_decay) options_.weight_decay = default_weight_decay;
  const auto [beta1, beta2] = options_.betas;
  require(beta1 >= 0.0 && beta1 < 1.0, "betas[0]", beta1, "0 <= beta1 < 1");
  require(beta2 >= 0.0 && beta2 < 1.0, "betas[1]", beta2, "0 <= beta2 < 1");
  require(options_.eps >= 0.0, "eps", options_.eps, "eps >= 0");
  require(*options_.weight_decay >= 0.0, "weight_decay", *options_.weight_decay, "weight_decay >= 0");
  state_.resize(this->params().size());
}

// The operations are those of torch's _single_tensor_adam(w), in the same
// order, so the results agree with PyTorch to the last bit or nearly so.
void Adam::update(std::size_t i, Array& p, const Array& g) {
  const auto [beta1, beta2] = options_.betas;
  const double weight_decay = *options_.weight_decay;
  AdamParamState& s = state_[i];
  if (s.step == 0) {  // lazily, like PyTorch: a parameter that never gets a gradient has no state
    s.exp_avg = xt::zeros_like(p);
    s.exp_avg_sq = xt::zeros_like(p);
    if (options_.amsgrad) s.max_exp_avg_sq = xt::zeros_like(p);
  } else {
    check_state_shape(i, "Adam moments", s.exp_avg, p);
  }
  s.step += 1;

  if (decoupled_weight_decay_) p *= 1.0 - lr() * weight_decay;          // AdamW: param.mul_(1 − lr·λ)
  const bool l2 = !decoupled_weight_decay_ && weight_decay != 0.0;
  const Array grad = l2 ? Array(g + weight_decay * p) : g;              // Adam: grad.add(param, alpha=λ)

  s.exp_avg = beta1 * s.exp_avg + (1.0 - beta1) * grad;                 // exp_avg.mul_(β1).add_(grad, alpha=1−β1)
  s.exp_avg_sq = beta2 * s.exp_avg_sq + (1.0 - beta2) * grad * grad;    // .mul_(β2).addcmul_(grad, grad, value=1−β2)

  const double t = static_cast<double>(s.step);
  const double bias_correction1 = 1.0 - std::pow(beta1, t);
  const double bias_correction2 = 1.0 - std::pow(beta2, t);
  const double step_size = lr() / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);

  if (options_.amsgrad) s.max_exp_avg_sq = xt::maximum(s.max_exp_avg_sq, s.exp_avg_sq);
  const Array& v = options_.amsgrad ? s.max_exp_avg_sq : s.exp_avg_sq;
  const Array denom = xt::sqrt(v) / bias_correction2_sqrt + options_.eps;  // (v.sqrt() / √bc2).add_(eps)
  p += -step_size * s.exp_avg / denom;                                     // param.addcdiv_(m, denom, value=−step_size)
}

}  // namespace tapegrad::optim
