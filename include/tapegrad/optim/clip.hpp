#pragma once
// Gradient norm and clipping by it (torch.nn.utils.clip_grad_norm_).
//
// The global L2 norm is over all gradients at once, as if they were one long
// vector:  ‖g‖ = √(Σ_p ‖g_p‖²). PyTorch computes it as the norm of the
// per-tensor norms, and so do we (same result, same rounding order).
// Parameters without a gradient are left out.

#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::optim {

// The global L2 norm of the parameters' gradients (0 if none has one).
double grad_norm(const std::vector<Tensor>& params);

// Scales every gradient by c = min(1, max_norm / (‖g‖ + 1e-6)), so that the
// global norm becomes at most max_norm (the 1e-6 keeps c finite for ‖g‖ = 0
// and leaves the clipped norm just under max_norm). Returns ‖g‖ before
// clipping, for logging. Like PyTorch, the gradients are multiplied by c even
// when c = 1, and a non-finite norm (inf/nan gradients) is passed through
// unless error_if_nonfinite, in which case an Error is thrown and nothing changes.
double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, bool error_if_nonfinite = false);

}  // namespace tapegrad::optim
