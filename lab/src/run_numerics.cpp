#include "tapegrad/lab/run_numerics.hpp"

namespace tapegrad::lab {

RunNumerics numerics_of(RunPrecision p) {
  switch (p) {
    case RunPrecision::fp64: return {Precision::fp64, false, false};
    case RunPrecision::fp32: return {Precision::fp32, false, false};
    case RunPrecision::bf16: return {Precision::bf16, false, false};
    case RunPrecision::fp16: return {Precision::fp16, false, false};
    case RunPrecision::bf16_mixed: return {Precision::bf16, true, true};
    case RunPrecision::fp16_mixed: return {Precision::fp16, true, true};
    case RunPrecision::bf16_mixed_noscale: return {Precision::bf16, true, false};
    case RunPrecision::fp16_mixed_noscale: return {Precision::fp16, true, false};
  }
  throw Error("numerics_of: unknown RunPrecision " + std::to_string(static_cast<int>(p)));
}

namespace {

std::optional<optim::MixedPrecision> mixed_precision_of(std::vector<Tensor>& params, const RunNumerics& n) {
  if (!n.master_weights) {
    if (n.working != Precision::fp64) round_(params, n.working);  // model.half(): the float64 init rounded once
    return std::nullopt;
  }
  optim::LossScaleOptions scaling;  // GradScaler's defaults
  if (!n.loss_scaling) scaling.init_scale = 1.0, scaling.dynamic = false;
  return optim::MixedPrecision(params, n.working, scaling);
}

}  // namespace

RunOptimizer::RunOptimizer(std::vector<Tensor> params, const RunNumerics& numerics, const optim::AdamOptions& options)
    : amp_(mixed_precision_of(params, numerics)), adam_(amp_ ? amp_->master_params() : params, options) {}

void RunOptimizer::zero_grad() {
  if (amp_) amp_->zero_grad();
  else adam_.zero_grad();
}

void RunOptimizer::backward(const Tensor& loss) {
  if (amp_ && amp_->scale() != 1.0) amp_->scale_loss(loss).backward();
  else loss.backward();
}

bool RunOptimizer::step() {
  if (amp_) return amp_->step(adam_);
  adam_.step();
  return true;
}

}  // namespace tapegrad::lab
