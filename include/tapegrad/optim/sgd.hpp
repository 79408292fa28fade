#pragma once
// SGD with momentum, dampening, Nesterov and weight decay: torch.optim.SGD's rule.
//
// For each parameter p with gradient g (lr, μ = momentum, τ = dampening, λ = weight_decay):
//   d ← g + λ p                              (if λ ≠ 0; L2 penalty λ/2·‖p‖²)
//   if μ ≠ 0:
//     b ← d                    on the first step (no dampening then, as in PyTorch)
//     b ← μ b + (1 − τ) d      afterwards
//     d ← d + μ b  (Nesterov)  or  d ← b
//   p ← p − lr d

#include <limits>
#include <optional>
#include <vector>

#include "tapegrad/optim/optimizer.hpp"

namespace tapegrad::optim {

// Fields in torch.optim.SGD's argument order, so SGDOptions{0.1, 0.9} reads like SGD(params, 0.1, 0.9).
struct SGDOptions {
  double lr = std::numeric_limits<double>::quiet_NaN();  // required: torch.optim.SGD has no default
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;  // needs momentum > 0 and dampening = 0
};

// The per-parameter state (PyTorch's optimizer.state[p]).
struct SGDParamState {
  std::optional<Array> momentum_buffer;  // empty until the first step with momentum
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, const SGDOptions& options);

  const SGDOptions& options() const { return options_; }  // options().lr is the initial lr; see lr()
  const SGDParamState& state(std::size_t i) const { return state_.at(i); }

 protected:
  void update(std::size_t i, Array& p, const Array& g) override;

 private:
  SGDOptions options_;
  std::vector<SGDParamState> state_;
};

}  // namespace tapegrad::optim
