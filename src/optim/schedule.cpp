#include "tapegrad/optim/schedule.hpp"

#include <algorithm>
#include <cmath>

#include "../argument_check.hpp"

namespace tapegrad::optim {
namespace {

void check_step(const char* schedule, long step) {
  detail::require(step >= 0, std::string(schedule) + "::lr_at", "step", static_cast<double>(step),
                  "step >= 0 (steps count from 0)");
}

void check_lr(const char* schedule, const char* what, double lr) {
  detail::require(lr >= 0.0 && std::isfinite(lr), schedule, what, lr, "a finite value >= 0");
}

}  // namespace

double LrSchedule::apply(Optimizer& optimizer, long step) const {
  const double lr = lr_at(step);
  optimizer.set_lr(lr);
  return lr;
}

ConstantSchedule::ConstantSchedule(double lr) : lr_(lr) { check_lr("ConstantSchedule", "lr", lr); }

double ConstantSchedule::lr_at(long step) const {
  check_step("ConstantSchedule", step);
  return lr_;
}

LinearWarmup::LinearWarmup(double lr, long warmup_steps) : lr_(lr), warmup_steps_(warmup_steps) {
  check_lr("LinearWarmup", "lr", lr);
  detail::require(warmup_steps >= 0, "LinearWarmup", "warmup_steps", static_cast<double>(warmup_steps),
                  "warmup_steps >= 0 (0: no warmup)");
}

double LinearWarmup::lr_at(long step) const {
  check_step("LinearWarmup", step);
  if (warmup_steps_ == 0 || step + 1 >= warmup_steps_) return lr_;
  return lr_ * static_cast<double>(step + 1) / static_cast<double>(warmup_steps_);
}

WarmupCosine::WarmupCosine(double lr, long warmup_steps, long total_steps, double min_lr)
    : warmup_(lr, warmup_steps), lr_(lr), min_lr_(min_lr), warmup_steps_(warmup_steps), total_steps_(total_steps) {
  check_lr("WarmupCosine", "min_lr", min_lr);
  detail::require(min_lr <= lr, "WarmupCosine", "min_lr", min_lr, "min_lr <= lr = " + detail::num(lr));
  detail::require(total_steps > warmup_steps, "WarmupCosine", "total_steps", static_cast<double>(total_steps),
                  "total_steps > warmup_steps = " + std::to_string(warmup_steps));
}

double WarmupCosine::lr_at(long step) const {
  check_step("WarmupCosine", step);
  if (step < warmup_steps_) return warmup_.lr_at(step);
  const double progress = std::min(
      1.0, static_cast<double>(step - warmup_steps_) / static_cast<double>(total_steps_ - warmup_steps_));
  return min_lr_ + (lr_ - min_lr_) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace tapegrad::optim
