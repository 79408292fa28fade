#pragma once
// Learning-rate schedules: lr as a function of the step number.
//
// Convention: `step` counts optimizer steps from 0, and lr_at(step) is the
// learning rate that the step-th optimizer.step() uses. A training loop:
//
//   for (long step = 0; step < total; ++step) {
//     schedule.apply(optimizer, step);   // optimizer.set_lr(schedule.lr_at(step))
//     ... zero_grad, forward, backward ...
//     optimizer.step();
//   }
//
//   ConstantSchedule(lr)             lr
//   LinearWarmup(lr, W)              lr · min(1, (step + 1) / W); W = 0: no warmup (lr throughout).
//                                    The first step already moves (lr/W); step W−1 reaches lr.
//   WarmupCosine(lr, W, T, min_lr)   the warmup above for step < W, then half a cosine
//                                    from lr at step W down to min_lr at step T:
//                                      progress = (step − W) / (T − W)
//                                      lr_t = min_lr + (lr − min_lr) · ½ (1 + cos(π · progress))
//                                    and min_lr for step ≥ T. Needs 0 ≤ W < T.

#include "tapegrad/optim/optimizer.hpp"

namespace tapegrad::optim {

class LrSchedule {
 public:
  virtual ~LrSchedule() = default;
  virtual double lr_at(long step) const = 0;
  // Sets the optimizer's lr to lr_at(step) and returns it.
  double apply(Optimizer& optimizer, long step) const;
};

class ConstantSchedule : public LrSchedule {
 public:
  explicit ConstantSchedule(double lr);
  double lr_at(long step) const override;

 private:
  double lr_;
};

class LinearWarmup : public LrSchedule {
 public:
  LinearWarmup(double lr, long warmup_steps);
  double lr_at(long step) const override;

 private:
  double lr_;
  long warmup_steps_;
};

class WarmupCosine : public LrSchedule {
 public:
  WarmupCosine(double lr, long warmup_steps, long total_steps, double min_lr = 0.0);
  double lr_at(long step) const override;

 private:
  LinearWarmup warmup_;
  double lr_, min_lr_;
  long warmup_steps_, total_steps_;
};

}  // namespace tapegrad::optim
