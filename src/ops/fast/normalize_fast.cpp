// The normalization kernel, fast version: the same arithmetic as normalize_reference.cpp
// (read that one first), arranged for speed:
//   - the sums run in four partial sums, so the additions overlap and vectorize
//     (different rounding: agrees with the reference to ~1e-15, not bitwise);
//   - each group is finished before the next starts, so its values are re-read from cache;
//   - outputs of 16 MiB or more are written with streaming stores;
//   - unit-stride loops for rows (a template on the layout), which the compiler vectorizes
//     for this machine's CPU (-march=native, TAPEGRAD_NATIVE; -ffp-contract=off keeps
//     every rounding as written).
// Run while kernels::use_fast_kernels is true (it starts as TAPEGRAD_FAST_KERNELS, ON by
// default; normalize_kernel.hpp); tests/ops/test_fast_kernels.cpp checks it
// against the reference.
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../normalize_kernel.hpp"

namespace tapegrad::kernels::fast {

namespace {

// Value j of group g is x[start(g) + j·step()], and its γ is γ[param(g, j)]. For rows
// the step is the constant 1: the compiler sees unit-stride loops and vectorizes them.
template <Groups kind>
struct Index {
  const Layout& L;
  std::size_t start(std::size_t g) const { return kind == Groups::rows ? g * L.n : g; }
  std::size_t step() const { return kind == Groups::rows ? 1 : L.groups; }
  static std::size_t param(std::size_t g, std::size_t j) { return kind == Groups::rows ? j : g; }
};

// Σ_{j<n} term(j), kept in four partial sums (by j mod 4) that are added at the end.
// A single running sum makes every addition wait for the one before (a chain of
// n additions, each taking several cycles); four independent chains overlap, and
// the compiler can put them in SIMD registers. Same n, same order: same bits.
// (Always inlined: inside the caller's loop the compiler sees the unit stride.)
template <class Term>
inline __attribute__((always_inline)) double sum_over(std::size_t n, Term term) {
  double part[4] = {0.0, 0.0, 0.0, 0.0};
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    part[0] += term(j);
    part[1] += term(j + 1);
    part[2] += term(j + 2);
    part[3] += term(j + 3);
  }
  for (; j < n; ++j) part[j % 4] += term(j);
  return (part[0] + part[1]) + (part[2] + part[3]);
}

// An output larger than this is written with streaming stores (rows layout only).
// A plain store first reads the line it writes into the cache ("write-allocate"):
// for an output that cannot stay in the cache anyway, that read is a third memory
// transfer per value (read x, read the old y, write y). 16 MiB is about the L3 of
// one core complex of common CPUs; below it the next op finds the output in cache.
constexpr std::size_t streaming_threshold_bytes = std::size_t{16} << 20;

bool use_streaming_stores(const Layout& L) {
  return L.kind == Groups::rows && L.groups * L.n * sizeof(double) >= streaming_threshold_bytes;
}

// to[0..n) = from[0..n), with stores that bypass the cache where the CPU has them (SSE2).
void stream_store(const double* from, double* to, std::size_t n) {
  std::size_t j = 0;
#if defined(__SSE2__)
  for (; j < n && reinterpret_cast<std::uintptr_t>(to + j) % 16 != 0; ++j) to[j] = from[j];  // to 16-byte alignment
  for (; j + 2 <= n; j += 2) _mm_stream_pd(to + j, _mm_loadu_pd(from + j));
#endif
  for (; j < n; ++j) to[j] = from[j];
}

// Where each group's output goes: straight into `out`, or, for a large output, into
// a row in cache that finish() then streams to `out`.
class GroupOutput {
 public:
  GroupOutput(double* out, const Layout& L) : out_(out), n_(L.n), streaming_(out && use_streaming_stores(L)) {
    if (streaming_) row_.resize(n_);
  }
  // Where to write the group that starts at out[start].
  double* at(std::size_t start) { return streaming_ ? row_.data() : out_ + start; }
  void finish(std::size_t start) {
    if (streaming_) stream_store(row_.data(), out_ + start, n_);
  }
  ~GroupOutput() {
#if defined(__SSE2__)
    if (streaming_) _mm_sfence();  // streaming stores are ordered for other threads only after a fence
#endif
  }

 private:
  double* out_;
  std::size_t n_;
  bool streaming_;
  std::vector<double> row_;
};

// Two passes: the mean first, then the squared deviations from it. Each term
// is small when the spread is small, so nothing cancels (unlike E[x²] − E[x]²).
GroupStats group_stats(const double* x, std::size_t n, std::size_t step, bool centered, double eps) {
  const double mean = centered ? sum_over(n, [&](std::size_t j) { return x[j * step]; }) / static_cast<double>(n) : 0.0;
  const double var = sum_over(n, [&](std::size_t j) {
                       const double d = x[j * step] - mean;
                       return d * d;
                     }) /
                     static_cast<double>(n);
  return {mean, var, 1.0 / std::sqrt(var + eps)};
}

// y = (x − mean)·rstd·γ + β, group by group; stats[g] is computed here first unless
// the statistics are constant (then stats holds them already).
template <Groups kind>
void forward_groups(const double* x, double* y, const Layout& L, Statistics mode, double eps,
                                         std::vector<GroupStats>& stats, const double* gamma, const double* beta) {
  const Index<kind> at{L};
  const std::size_t s = at.step();
  GroupOutput out(y, L);
  for (std::size_t g = 0; g < L.groups; ++g) {
    const double* xg = x + at.start(g);
    double* yg = out.at(at.start(g));
    if (mode != Statistics::constant) stats[g] = group_stats(xg, L.n, s, mode == Statistics::centered, eps);
    const double mean = stats[g].mean, rstd = stats[g].rstd;
    for (std::size_t j = 0; j < L.n; ++j) {
      const std::size_t p = at.param(g, j);
      yg[j * s] = (xg[j * s] - mean) * rstd * gamma[p] + beta[p];
    }
    out.finish(at.start(g));
  }
}

template <Groups kind>
void backward_groups(const double* x, const double* dy, const Layout& L,
                                          const std::vector<GroupStats>& stats, const double* gamma, Statistics mode,
                                          double* dx, double* dgamma, double* dbeta) {
  const Index<kind> at{L};
  const std::size_t s = at.step();
  const double inv_n = 1.0 / static_cast<double>(L.n);
  GroupOutput out(dx, L);
  for (std::size_t g = 0; g < L.groups; ++g) {
    const double* xg = x + at.start(g);
    const double* dyg = dy + at.start(g);
    const double mean = stats[g].mean, rstd = stats[g].rstd;
    auto xhat = [&](std::size_t j) { return (xg[j * s] - mean) * rstd; };
    auto g_at = [&](std::size_t j) { return dyg[j * s] * gamma[at.param(g, j)]; };  // g = dy ⊙ γ
    if (dgamma)
      for (std::size_t j = 0; j < L.n; ++j) dgamma[at.param(g, j)] += dyg[j * s] * xhat(j);
    if (dbeta)
      for (std::size_t j = 0; j < L.n; ++j) dbeta[at.param(g, j)] += dyg[j * s];
    if (!dx) continue;
    // mean(g) and mean(g ⊙ x̂): what the statistics pass back to every x.
    double mean_g = 0.0, mean_g_xhat = 0.0;
    if (mode == Statistics::centered) mean_g = sum_over(L.n, g_at) * inv_n;
    if (mode != Statistics::constant)
      mean_g_xhat = sum_over(L.n, [&](std::size_t j) { return g_at(j) * xhat(j); }) * inv_n;
    double* dxg = out.at(at.start(g));
    for (std::size_t j = 0; j < L.n; ++j) dxg[j * s] = rstd * (g_at(j) - mean_g - xhat(j) * mean_g_xhat);
    out.finish(at.start(g));
  }
}

// γ = 1 or β = 0 when not given, as a buffer of `count` values: the loops then
// have no branches. `storage` holds the buffer while the caller uses it.
const double* or_constant(const double* given, double value, std::size_t count, std::vector<double>& storage) {
  if (given) return given;
  storage.assign(count, value);
  return storage.data();
}

// How many γ (and β) values a layout has: one per position (rows) or per group (columns).
std::size_t param_count(const Layout& L) { return L.kind == Groups::rows ? L.n : L.groups; }

}  // namespace

void normalize_forward(const double* x, double* y, const Layout& L, Statistics mode, double eps,
                              std::vector<GroupStats>& stats, const double* gamma, const double* beta) {
  stats.resize(L.groups);
  std::vector<double> ones, zeros;
  gamma = or_constant(gamma, 1.0, param_count(L), ones);
  beta = or_constant(beta, 0.0, param_count(L), zeros);
  if (L.kind == Groups::rows) forward_groups<Groups::rows>(x, y, L, mode, eps, stats, gamma, beta);
  else forward_groups<Groups::columns>(x, y, L, mode, eps, stats, gamma, beta);
}

void normalize_backward(const double* x, const double* dy, const Layout& L, const std::vector<GroupStats>& stats,
                               const double* gamma, Statistics mode, double* dx, double* dgamma, double* dbeta) {
  std::vector<double> ones;
  gamma = or_constant(gamma, 1.0, param_count(L), ones);
  if (L.kind == Groups::rows) backward_groups<Groups::rows>(x, dy, L, stats, gamma, mode, dx, dgamma, dbeta);
  else backward_groups<Groups::columns>(x, dy, L, stats, gamma, mode, dx, dgamma, dbeta);
}

}  // namespace tapegrad::kernels::fast
