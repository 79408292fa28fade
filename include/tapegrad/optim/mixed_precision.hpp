#pragma once
// Mixed precision: the model computes in fp16 or bf16, the optimizer updates float32 master
// copies of the parameters, and the loss is scaled so that small gradients survive fp16
// (Micikevicius et al. 2018, "Mixed Precision Training"; the scaling rule is
// torch.cuda.amp.GradScaler's). One training step:
//
//   MixedPrecision amp(model.parameters(), Precision::fp16);
//   Adam optimizer(amp.master_params());
//   ...
//   amp.zero_grad();
//   {
//     precision_scope fp16(Precision::fp16);
//     Tensor loss = loss_fn(model(x));
//     amp.scale_loss(loss).backward();   // d(scale·L): gradients `scale` times larger
//   }
//   amp.step(optimizer);                 // unscale, skip if inf/nan, step in fp32, copy back
//
// Why: fp16's smallest subnormal is 6e-8, so gradients below it (and Adam's g² far sooner)
// become 0; scaling L by 2^16 moves them into range. A step whose scaled gradients overflowed
// (inf/nan) is skipped and the scale halved; after growth_interval clean steps it doubles.
// The master copy keeps updates that are smaller than half an fp16 ulp of the weight,
// which would otherwise round away (w + Δw == w).

#include <vector>

#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/optim/optimizer.hpp"

namespace tapegrad::optim {

// torch.cuda.amp.GradScaler's defaults. dynamic = false keeps the scale at init_scale
// (init_scale = 1: no loss scaling, the master copy only).
struct LossScaleOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  long growth_interval = 2000;
  bool dynamic = true;
};

class MixedPrecision {
 public:
  // model_params: the model's parameters; they are rounded to `working` now and after each step.
  MixedPrecision(std::vector<Tensor> model_params, Precision working, const LossScaleOptions& options = {},
                 Precision master = Precision::fp32);

  // The float32 copies, in the model's order and with its names: build the optimizer on these.
  const std::vector<Tensor>& master_params() const { return master_; }
  // loss · scale, recorded on the tape: call backward() on it.
  Tensor scale_loss(const Tensor& loss) const;
  // Gradients of the model / scale into the masters (in the master precision). If any is inf or
  // NaN: no step, the scale times backoff_factor, returns false. Else optimizer.step() in the
  // master precision, the masters copied into the model (rounded to `working`), true.
  bool step(Optimizer& optimizer);
  // Drops the model's and the masters' gradients.
  void zero_grad();

  double scale() const { return scale_; }
  long skipped_steps() const { return skipped_; }
  Precision working() const { return working_; }

 private:
  std::vector<Tensor> model_;
  std::vector<Tensor> master_;
  Precision working_;
  Precision master_precision_;
  LossScaleOptions options_;
  double scale_;
  long clean_steps_ = 0;  // steps since the scale last changed (GradScaler's growth tracker)
  long skipped_ = 0;
};

}  // namespace tapegrad::optim
