#pragma once
// How a run stores its numbers (RunConfig::precision), and the optimizer that goes with it.
//
//   fp64                  the library's float64: nothing is rounded (every output as before precision existed)
//   fp32, bf16, fp16      the whole model in the format, as model.half() in PyTorch: the data, every op's output,
//                         every gradient, the parameters and Adam's moments rounded to it (docs/precision.md)
//   bf16-mixed,           AMP (Micikevicius et al. 2018): the model computes in the format, Adam updates float32
//   fp16-mixed            master weights with float32 state, and the loss is scaled by GradScaler's dynamic rule
//                         (2^16 to start, halved and the step skipped when a gradient overflows)
//   *-mixed-noscale       the master weights only (scale 1): what loss scaling adds, side by side
//
// The loss is computed in the working format too (autocast would compute it in float32: the logged loss differs by
// at most half an ulp of the format, 4.9e-4 relative in fp16).

#include <optional>
#include <vector>

#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/optim/adam.hpp"
#include "tapegrad/optim/mixed_precision.hpp"

namespace tapegrad::lab {

struct RunNumerics {
  Precision working = Precision::fp64;  // what ops, gradients and the model's parameters hold
  bool master_weights = false;          // float32 masters and Adam's state in float32 (optim::MixedPrecision)
  bool loss_scaling = false;            // GradScaler's dynamic loss scale (only with master weights)
};
RunNumerics numerics_of(RunPrecision precision);

// Adam on the model's parameters in the run's numerics. One step:
//   opt.zero_grad(); opt.backward(loss); g = grad_norm(params) / opt.grad_scale(); ...; opt.step();
class RunOptimizer {
 public:
  // Rounds the parameters to the working format (pure formats), or makes the float32 masters (mixed).
  RunOptimizer(std::vector<Tensor> params, const RunNumerics& numerics, const optim::AdamOptions& options);

  optim::Adam& adam() { return adam_; }  // for the learning-rate schedule
  void zero_grad();
  // loss.backward(), or (loss · scale).backward() under loss scaling.
  void backward(const Tensor& loss);
  // The factor the model's gradients carry after backward(): the loss scale, 1 without one.
  double grad_scale() const { return amp_ ? amp_->scale() : 1.0; }
  // Adam's step; false when loss scaling skipped it (a scaled gradient was inf or NaN: the scale is halved).
  bool step();

 private:
  std::optional<optim::MixedPrecision> amp_;  // before adam_: Adam is built on its masters
  optim::Adam adam_;
};

}  // namespace tapegrad::lab
