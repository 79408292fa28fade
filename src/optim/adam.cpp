#include "tapegrad/optim/adam.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/precision.hpp"

namespace tapegrad::optim {

namespace {

struct AdamStepConstants {
  double beta1, beta2, weight_decay, decay, eps, step_size, bias_correction2_sqrt;
};

enum class WeightDecay { none, l2, decoupled };

// One Adam step over n elements, in place: per element, the operations of torch's
// _single_tensor_adam(w) in the same order, so the results agree with PyTorch to
// the last bit or nearly so. The variant is a template parameter so that each
// loop has no branches and no aliasing (restrict) and the compiler vectorizes it:
// the sqrt and the division dominate, and SIMD does several at once (how wide:
// the library is compiled for this machine's CPU, TAPEGRAD_NATIVE in CMakeLists.txt).
template <WeightDecay kind, bool amsgrad>
void adam_elements(const AdamStepConstants& c, double* __restrict w, double* __restrict m, double* __restrict v,
                   double* __restrict v_max, const double* __restrict dw, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    if constexpr (kind == WeightDecay::decoupled) w[j] *= c.decay;  // AdamW: param.mul_(1 − lr·λ)
    double grad = dw[j];
    if constexpr (kind == WeightDecay::l2) grad += c.weight_decay * w[j];  // Adam: grad.add(param, alpha=λ)
    m[j] = c.beta1 * m[j] + (1.0 - c.beta1) * grad;                         // exp_avg.mul_(β1).add_(grad, alpha=1−β1)
    v[j] = c.beta2 * v[j] + (1.0 - c.beta2) * grad * grad;                  // .mul_(β2).addcmul_(grad, grad, value=1−β2)
    double second_moment = v[j];
    if constexpr (amsgrad) second_moment = v_max[j] = std::max(v_max[j], v[j]);  // torch.maximum(max_exp_avg_sq, v)
    const double denom = std::sqrt(second_moment) / c.bias_correction2_sqrt + c.eps;
    w[j] += -c.step_size * m[j] / denom;  // param.addcdiv_(m, denom, value=−step_size)
  }
}

}  // namespace

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

void Adam::load_state(std::vector<AdamParamState> states) {
  if (states.size() != params().size())
    throw Error("Adam.load_state: " + std::to_string(states.size()) + " states for " +
                std::to_string(params().size()) + " parameters (one per parameter, in params() order)");
  for (std::size_t i = 0; i < states.size(); ++i) {
    const AdamParamState& s = states[i];
    if (s.step < 0) throw Error("Adam.load_state: parameter " + std::to_string(i) + " has step " +
                                std::to_string(s.step) + " (expected >= 0)");
    if (s.step == 0) continue;  // no state yet: made at its first update
    const Array& value = params()[i].value();
    const Shape shape(value.shape().begin(), value.shape().end());
    const auto same = [&](const Array& a) { return Shape(a.shape().begin(), a.shape().end()) == shape; };
    if (!same(s.exp_avg) || !same(s.exp_avg_sq) || (options_.amsgrad && !same(s.max_exp_avg_sq)))
      throw ShapeError("Adam.load_state: parameter " + std::to_string(i) + " is " + shape_str(shape) +
                       " but its state's moments are " + shape_str(s.exp_avg.shape()) + " and " +
                       shape_str(s.exp_avg_sq.shape()) +
                       (options_.amsgrad ? " and max_exp_avg_sq " + shape_str(s.max_exp_avg_sq.shape()) : ""));
  }
  state_ = std::move(states);
}

// The update of torch's _single_tensor_adam(w), element by element.
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

  const double t = static_cast<double>(s.step);
  const double bias_correction1 = 1.0 - std::pow(beta1, t);
  const double bias_correction2 = 1.0 - std::pow(beta2, t);
  const AdamStepConstants c{beta1,        beta2, weight_decay, /*decay=*/1.0 - lr() * weight_decay, options_.eps,
                            /*step_size=*/lr() / bias_correction1, /*bias_correction2_sqrt=*/std::sqrt(bias_correction2)};
  double* w = p.data();
  double* m = s.exp_avg.data();
  double* v = s.exp_avg_sq.data();
  double* v_max = options_.amsgrad ? s.max_exp_avg_sq.data() : nullptr;
  const double* dw = g.data();
  const std::size_t n = p.size();
  // The variant is chosen once per tensor, outside the loop.
  if (decoupled_weight_decay_) {
    if (v_max) adam_elements<WeightDecay::decoupled, true>(c, w, m, v, v_max, dw, n);
    else adam_elements<WeightDecay::decoupled, false>(c, w, m, v, v_max, dw, n);
  } else if (weight_decay != 0.0) {
    if (v_max) adam_elements<WeightDecay::l2, true>(c, w, m, v, v_max, dw, n);
    else adam_elements<WeightDecay::l2, false>(c, w, m, v, v_max, dw, n);
  } else {
    if (v_max) adam_elements<WeightDecay::none, true>(c, w, m, v, v_max, dw, n);
    else adam_elements<WeightDecay::none, false>(c, w, m, v, v_max, dw, n);
  }
  // Inside a precision_scope the moments are stored in its format (Optimizer::step rounds p);
  // the arithmetic above stays float64, so without a scope nothing changes.
  round_to_current_precision(s.exp_avg);
  round_to_current_precision(s.exp_avg_sq);
  if (options_.amsgrad) round_to_current_precision(s.max_exp_avg_sq);
}

}  // namespace tapegrad::optim
