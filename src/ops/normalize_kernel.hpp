#pragma once
// The one kernel behind layer_norm, rms_norm and batch_norm (internal header of src/ops).
//
// All three normalise *groups* of n values:
//   rows    (LayerNorm, RMSNorm):  group g is row g of a (groups, n) matrix, γ_j per position;
//   columns (BatchNorm, features last): group g is column g of an (n, groups) matrix, γ_g per group.
//
// It exists twice, with the same arguments:
//   kernels::reference  (normalize_reference.cpp)  plain loops, one running sum: read this one;
//   kernels::fast       (fast/normalize_fast.cpp)  partial sums and streaming stores.
// The ops call kernels::normalize_forward / normalize_backward below, which hold the one
// switch between the two (use_fast_kernels); tests/ops/test_fast_kernels.cpp proves the two agree.

#include <cstddef>
#include <vector>

#include "../autograd/kernel_switch.hpp"  // use_fast_kernels, the one switch

namespace tapegrad::kernels {

enum class Groups { rows, columns };

struct Layout {
  Groups kind;
  std::size_t groups;  // rows: how many rows; columns: how many features
  std::size_t n;       // values per group
};

struct GroupStats {
  double mean;  // 0 for RMSNorm, which does not centre
  double var;   // biased: Σ(x − mean)² / n   (RMSNorm: mean(x²))
  double rstd;  // 1 / sqrt(var + eps)
};

// Where the statistics come from, which also decides the terms of dx:
//   centered   (LayerNorm, BatchNorm training): mean and var of the group;
//              dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂))
//   uncentered (RMSNorm): mean 0, var = mean(x²);  dx = rstd·(g − x̂·mean(g ⊙ x̂))
//   constant   (BatchNorm eval): the running statistics, given; dx = rstd·g
// with g = dy ⊙ γ and x̂ = (x − mean)·rstd. Also dγ += dy ⊙ x̂ and dβ += dy.
enum class Statistics { centered, uncentered, constant };

// The two implementations, same signatures:
//   forward:  writes y and, unless the statistics are constant, stats[g] of every group
//             (stats is resized to L.groups; when constant it holds them already);
//   backward: writes dx, adds to dγ and dβ; any of the three may be null (not wanted).
// γ or β null means 1 or 0.
using NormalizeForward = void(const double* x, double* y, const Layout& L, Statistics mode, double eps,
                              std::vector<GroupStats>& stats, const double* gamma, const double* beta);
using NormalizeBackward = void(const double* x, const double* dy, const Layout& L,
                               const std::vector<GroupStats>& stats, const double* gamma, Statistics mode,
                               double* dx, double* dgamma, double* dbeta);
namespace reference {
NormalizeForward normalize_forward;
NormalizeBackward normalize_backward;
}  // namespace reference
namespace fast {
NormalizeForward normalize_forward;
NormalizeBackward normalize_backward;
}  // namespace fast

// What the ops call: the kernel that use_fast_kernels picks (autograd/kernel_switch.hpp: the one
// switch, for the shape ops' kernels too, and how gdb flips it).
inline void normalize_forward(const double* x, double* y, const Layout& L, Statistics mode, double eps,
                              std::vector<GroupStats>& stats, const double* gamma, const double* beta) {
  if (use_fast_kernels) fast::normalize_forward(x, y, L, mode, eps, stats, gamma, beta);
  else reference::normalize_forward(x, y, L, mode, eps, stats, gamma, beta);
}
inline void normalize_backward(const double* x, const double* dy, const Layout& L,
                               const std::vector<GroupStats>& stats, const double* gamma, Statistics mode,
                               double* dx, double* dgamma, double* dbeta) {
  if (use_fast_kernels) fast::normalize_backward(x, dy, L, stats, gamma, mode, dx, dgamma, dbeta);
  else reference::normalize_backward(x, dy, L, stats, gamma, mode, dx, dgamma, dbeta);
}

// BatchNorm's running statistics, as PyTorch: running = (1 − momentum)·running + momentum·batch,
// where running_var takes the *unbiased* batch variance (n/(n−1) times the biased one used to normalise).
inline void update_running_stats(double* running_mean, double* running_var, const double* batch_mean,
                                 const double* batch_biased_var, std::size_t features, std::size_t n, double momentum) {
  const double unbias = static_cast<double>(n) / static_cast<double>(n - 1);
  for (std::size_t c = 0; c < features; ++c) {
    running_mean[c] = (1.0 - momentum) * running_mean[c] + momentum * batch_mean[c];
    running_var[c] = (1.0 - momentum) * running_var[c] + momentum * batch_biased_var[c] * unbias;
  }
}

}  // namespace tapegrad::kernels
