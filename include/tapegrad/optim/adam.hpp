#pragma once
// Adam and AdamW: torch.optim.Adam / AdamW's default (single-tensor, non-fused) rule.
//
// For each parameter p with gradient g, at its t-th update (t = 1, 2, ...):
//   Adam:  g ← g + λ p                       (L2 penalty folded into the gradient, if λ ≠ 0)
//   AdamW: p ← p (1 − lr λ)                  (decoupled weight decay, Loshchilov & Hutter)
//   m ← β1 m + (1 − β1) g                    first moment (running mean of g)
//   v ← β2 v + (1 − β2) g²                   second moment (running mean of g²)
//   v̂ ← max(v̂, v) if amsgrad, else v
//   p ← p − (lr / (1 − β1^t)) · m / (√v̂ / √(1 − β2^t) + ε)
// The two bias corrections undo the pull of m, v's zero start towards 0; they
// are applied to the scalars lr and √v̂ rather than to m and v, exactly as
// PyTorch does, so that results agree with it to rounding.

#include <optional>
#include <utility>
#include <vector>

#include "tapegrad/optim/optimizer.hpp"

namespace tapegrad::optim {

// Fields in torch.optim.Adam's argument order: AdamOptions{1e-3, {0.9, 0.999}, 1e-8, 0.0}.
struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas{0.9, 0.999};  // each in [0, 1)
  double eps = 1e-8;
  // Unset means PyTorch's default: 0 for Adam, 1e-2 for AdamW.
  std::optional<double> weight_decay = std::nullopt;
  bool amsgrad = false;
};

struct AdamParamState {
  long step = 0;           // this parameter's updates so far (0: state not made yet)
  Array exp_avg;           // m
  Array exp_avg_sq;        // v
  Array max_exp_avg_sq;    // v̂, with amsgrad only
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, const AdamOptions& options = {});

  // The options in use (weight_decay filled in); options().lr is the initial lr, see lr().
  const AdamOptions& options() const { return options_; }
  const AdamParamState& state(std::size_t i) const { return state_.at(i); }
  // Resuming from a checkpoint (torch's optimizer.load_state_dict): one state per parameter, in params() order,
  // as state(i) gave them. Checked before anything changes: the count, each step >= 0, and for a state with
  // step > 0 its moments' shapes against the parameter's (and max_exp_avg_sq's with amsgrad): an Error naming
  // the parameter's index and both shapes.
  void load_state(std::vector<AdamParamState> states);

 protected:
  // For AdamW: decoupled = true, and the default weight decay.
  Adam(std::string name, std::vector<Tensor> params, const AdamOptions& options, bool decoupled,
       double default_weight_decay);
  void update(std::size_t i, Array& p, const Array& g) override;

 private:
  AdamOptions options_;
  bool decoupled_weight_decay_;
  std::vector<AdamParamState> state_;
};

// Adam with decoupled weight decay; default weight_decay 1e-2.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, const AdamOptions& options = {});
};

}  // namespace tapegrad::optim
