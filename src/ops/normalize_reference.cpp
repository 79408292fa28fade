// The normalization kernel, reference version: plain loops written like llm.c's
// layernorm_forward / layernorm_backward. One loop per step, one running sum.
// This is the version to read (and to step through: the debug preset uses it);
// fast/normalize_fast.cpp computes the same faster, and tests prove they agree.
#include <cmath>

#include "normalize_kernel.hpp"

namespace tapegrad::kernels::reference {

namespace {

// Where group g's values are: x[start + j·step] for j < n.
struct Group {
  std::size_t start, step;
};

Group group(const Layout& L, std::size_t g) { return L.kind == Groups::rows ? Group{g * L.n, 1} : Group{g, L.groups}; }

// Which γ (and β) value multiplies value j of group g: one per position (rows) or per group (columns).
std::size_t param(const Layout& L, std::size_t g, std::size_t j) { return L.kind == Groups::rows ? j : g; }

// Two passes: the mean first, then the squared deviations from it. Each term is small
// when the spread is small, so nothing cancels (unlike E[x²] − E[x]²).
GroupStats statistics(const double* x, Group G, std::size_t n, bool centered, double eps) {
  double mean = 0.0;
  if (centered) {
    for (std::size_t j = 0; j < n; ++j) mean += x[G.start + j * G.step];
    mean /= static_cast<double>(n);
  }
  double var = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double d = x[G.start + j * G.step] - mean;
    var += d * d;
  }
  var /= static_cast<double>(n);
  return {mean, var, 1.0 / std::sqrt(var + eps)};
}

}  // namespace

// y = (x − mean)·rstd·γ + β
void normalize_forward(const double* x, double* y, const Layout& L, Statistics mode, double eps,
                       std::vector<GroupStats>& stats, const double* gamma, const double* beta) {
  stats.resize(L.groups);
  for (std::size_t g = 0; g < L.groups; ++g) {
    const Group G = group(L, g);
    if (mode != Statistics::constant) stats[g] = statistics(x, G, L.n, mode == Statistics::centered, eps);
    const double mean = stats[g].mean, rstd = stats[g].rstd;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t i = G.start + j * G.step, p = param(L, g, j);
      const double xhat = (x[i] - mean) * rstd;
      y[i] = xhat * (gamma ? gamma[p] : 1.0) + (beta ? beta[p] : 0.0);
    }
  }
}

// With x̂ = (x − mean)·rstd and g = dy ⊙ γ:
//   dβ += dy,  dγ += dy ⊙ x̂,  dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂))
// where mean(g) is 0 for uncentered statistics and both means are 0 for constant ones.
void normalize_backward(const double* x, const double* dy, const Layout& L, const std::vector<GroupStats>& stats,
                        const double* gamma, Statistics mode, double* dx, double* dgamma, double* dbeta) {
  for (std::size_t g = 0; g < L.groups; ++g) {
    const Group G = group(L, g);
    const double mean = stats[g].mean, rstd = stats[g].rstd;

    // 1. the two means that the statistics pass back to every x
    double mean_g = 0.0, mean_g_xhat = 0.0;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t i = G.start + j * G.step;
      const double xhat = (x[i] - mean) * rstd;
      const double gj = dy[i] * (gamma ? gamma[param(L, g, j)] : 1.0);
      mean_g += gj;
      mean_g_xhat += gj * xhat;
    }
    mean_g = mode == Statistics::centered ? mean_g / static_cast<double>(L.n) : 0.0;
    mean_g_xhat = mode == Statistics::constant ? 0.0 : mean_g_xhat / static_cast<double>(L.n);

    // 2. the gradients, value by value
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t i = G.start + j * G.step, p = param(L, g, j);
      const double xhat = (x[i] - mean) * rstd;
      const double gj = dy[i] * (gamma ? gamma[p] : 1.0);
      if (dbeta) dbeta[p] += dy[i];
      if (dgamma) dgamma[p] += dy[i] * xhat;
      if (dx) dx[i] = rstd * (gj - mean_g - xhat * mean_g_xhat);
    }
  }
}

}  // namespace tapegrad::kernels::reference
