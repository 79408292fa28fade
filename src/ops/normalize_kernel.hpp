#pragma once
// The one kernel behind layer_norm, rms_norm and batch_norm (internal header).
//
// All three normalise *groups* of n values: LayerNorm and RMSNorm one group per
// row (the trailing dimensions), BatchNorm one group per feature column. A
// Layout says where group g's values sit: x[g·group_step + j·stride], with its
// affine parameters at γ[g·affine_group_step + j·affine_stride].

#include <cmath>
#include <cstddef>
#include <vector>

namespace tapegrad::kernels {

struct Layout {
  std::size_t groups;             // how many groups
  std::size_t n;                  // values per group
  std::size_t group_step;         // offset between the first values of two groups
  std::size_t stride;             // offset between two values of a group
  std::size_t affine_group_step;  // LayerNorm: 0 (γ_j shared by rows); BatchNorm: 1 (γ_c per column)
  std::size_t affine_stride;      // LayerNorm: 1;                        BatchNorm: 0
};

struct GroupStats {
  double mean;  // 0 for RMSNorm, which does not centre
  double var;   // biased: Σ(x − mean)² / n   (RMSNorm: mean(x²))
  double rstd;  // 1 / sqrt(var + eps)
};

// Two passes: the mean first, then the squared deviations from it. Each term
// is small when the spread is small, so nothing cancels (unlike E[x²] − E[x]²).
inline GroupStats group_stats(const double* x, std::size_t n, std::size_t stride, bool centered, double eps) {
  double mean = 0.0;
  if (centered) {
    for (std::size_t j = 0; j < n; ++j) mean += x[j * stride];
    mean /= static_cast<double>(n);
  }
  double var = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double d = x[j * stride] - mean;
    var += d * d;
  }
  var /= static_cast<double>(n);
  return {mean, var, 1.0 / std::sqrt(var + eps)};
}

inline std::vector<GroupStats> all_group_stats(const double* x, const Layout& L, bool centered, double eps) {
  std::vector<GroupStats> stats(L.groups);
  for (std::size_t g = 0; g < L.groups; ++g) stats[g] = group_stats(x + g * L.group_step, L.n, L.stride, centered, eps);
  return stats;
}

// y = (x − mean)·rstd·γ + β   (γ, β may be null: 1 and 0)
inline void normalize_forward(const double* x, double* y, const Layout& L, const std::vector<GroupStats>& stats,
                              const double* gamma, const double* beta) {
  for (std::size_t g = 0; g < L.groups; ++g) {
    const GroupStats s = stats[g];
    const double* xg = x + g * L.group_step;
    double* yg = y + g * L.group_step;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t a = g * L.affine_group_step + j * L.affine_stride;
      const double xhat = (xg[j * L.stride] - s.mean) * s.rstd;
      yg[j * L.stride] = xhat * (gamma ? gamma[a] : 1.0) + (beta ? beta[a] : 0.0);
    }
  }
}

// How the statistics depend on x, which decides the terms of dx:
//   centered   (LayerNorm, BatchNorm training): dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂))
//   uncentered (RMSNorm):                       dx = rstd·(g − x̂·mean(g ⊙ x̂))
//   constant   (BatchNorm eval, running stats): dx = rstd·g
// with g = dy ⊙ γ and x̂ = (x − mean)·rstd. Also dγ += dy ⊙ x̂ and dβ += dy.
enum class StatsGrad { centered, uncentered, constant };

inline void normalize_backward(const double* x, const double* dy, const Layout& L, const std::vector<GroupStats>& stats,
                               const double* gamma, StatsGrad mode, double* dx, double* dgamma, double* dbeta) {
  const double inv_n = 1.0 / static_cast<double>(L.n);
  for (std::size_t g = 0; g < L.groups; ++g) {
    const GroupStats s = stats[g];
    const double* xg = x + g * L.group_step;
    const double* dyg = dy + g * L.group_step;
    // First pass: mean(g) and mean(g ⊙ x̂), and the parameter gradients.
    double mean_g = 0.0, mean_g_xhat = 0.0;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t a = g * L.affine_group_step + j * L.affine_stride;
      const double xhat = (xg[j * L.stride] - s.mean) * s.rstd;
      const double d = dyg[j * L.stride];
      const double gj = d * (gamma ? gamma[a] : 1.0);
      mean_g += gj;
      mean_g_xhat += gj * xhat;
      if (dgamma) dgamma[a] += d * xhat;
      if (dbeta) dbeta[a] += d;
    }
    mean_g *= inv_n;
    mean_g_xhat *= inv_n;
    if (mode != StatsGrad::centered) mean_g = 0.0;
    if (mode == StatsGrad::constant) mean_g_xhat = 0.0;
    if (!dx) continue;
    // Second pass: dx.
    double* dxg = dx + g * L.group_step;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t a = g * L.affine_group_step + j * L.affine_stride;
      const double xhat = (xg[j * L.stride] - s.mean) * s.rstd;
      const double gj = dyg[j * L.stride] * (gamma ? gamma[a] : 1.0);
      dxg[j * L.stride] = s.rstd * (gj - mean_g - xhat * mean_g_xhat);
    }
  }
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
