#include "tapegrad/optim/mixed_precision.hpp"

#include <cmath>

#include "tapegrad/ops/elementwise.hpp"

#include "../argument_check.hpp"

namespace tapegrad::optim {

namespace {

bool all_finite(const Array& a) {
  for (double v : a)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

MixedPrecision::MixedPrecision(std::vector<Tensor> model_params, Precision working, const LossScaleOptions& options,
                               Precision master)
    : model_(std::move(model_params)), working_(working), master_precision_(master), options_(options),
      scale_(options.init_scale) {
  const char* who = "MixedPrecision";
  if (model_.empty()) throw Error("MixedPrecision: got an empty parameter list");
  detail::require(options.init_scale > 0.0 && std::isfinite(options.init_scale), who, "init_scale",
                  options.init_scale, "a finite init_scale > 0");
  detail::require(options.growth_factor > 1.0, who, "growth_factor", options.growth_factor, "growth_factor > 1");
  detail::require(options.backoff_factor > 0.0 && options.backoff_factor < 1.0, who, "backoff_factor",
                  options.backoff_factor, "0 < backoff_factor < 1");
  detail::require(options.growth_interval >= 1, who, "growth_interval", static_cast<double>(options.growth_interval),
                  "growth_interval >= 1");
  for (Tensor& p : model_) {
    if (!p.defined()) throw Error("MixedPrecision: a parameter is an undefined Tensor()");
    master_.emplace_back(Array(p.value()), true, p.name());
    round_(master_.back(), master_precision_);
    round_(p, working_);
  }
}

// In the master precision, as autocast computes the loss in fp32: its gradient, the scale
// itself (2^16 at first), would overflow fp16.
Tensor MixedPrecision::scale_loss(const Tensor& loss) const {
  precision_scope in_master(master_precision_);
  return mul(loss, scale_);
}

bool MixedPrecision::step(Optimizer& optimizer) {
  precision_scope in_master(master_precision_);
  bool finite = true;
  for (std::size_t i = 0; i < model_.size(); ++i) {
    master_[i].zero_grad();
    if (!model_[i].has_grad()) continue;
    // g / scale, stored in the master precision (GradScaler's unscale_: multiply by 1/scale).
    master_[i].accumulate_grad(Array(model_[i].grad() * (1.0 / scale_)));
    finite = finite && all_finite(master_[i].grad());
  }
  if (!finite) {  // overflow somewhere in the scaled backward: skip the step, try a smaller scale
    for (Tensor& m : master_) m.zero_grad();
    ++skipped_;
    if (options_.dynamic) scale_ *= options_.backoff_factor;
    clean_steps_ = 0;
    return false;
  }
  optimizer.step();
  for (std::size_t i = 0; i < model_.size(); ++i) {
    model_[i].mutable_value() = master_[i].value();
    round_(model_[i], working_);
  }
  if (options_.dynamic && ++clean_steps_ == options_.growth_interval) {
    scale_ *= options_.growth_factor;
    clean_steps_ = 0;
  }
  return true;
}

void MixedPrecision::zero_grad() {
  for (Tensor& p : model_) p.zero_grad();
  for (Tensor& m : master_) m.zero_grad();
}

}  // namespace tapegrad::optim
