// The fast normalization kernel (src/ops/fast/) against the reference one
// (src/ops/normalize_reference.cpp) that a learner reads: same statistics, outputs and
// gradients. The fast kernel splits its sums into four partial sums and multiplies by
// 1/n where the reference divides by n, so most values agree to 1e-12 rather than
// bitwise. Bitwise where the arithmetic is the same: dβ (the same sums of dy) always;
// the statistics, y and dγ when a group has at most 3 values (the partial sums then add
// in the reference's order) or the statistics are given (BatchNorm eval); dx then too.
#include <cstring>
#include <vector>

#include <xtensor/xadapt.hpp>

#include "../../src/ops/normalize_kernel.hpp"
#include "helpers.hpp"

using namespace tapegrad;
using namespace tapegrad::kernels;

namespace {

struct Case {
  Layout layout;
  Statistics mode;
  bool affine;
};

// Forward and backward outputs of one kernel.
struct Results {
  std::vector<double> y;
  std::vector<GroupStats> stats;
  std::vector<double> dx, dgamma, dbeta;
};

std::vector<double> values(std::size_t count, std::uint64_t seed, double mean = 0.0) {
  Array a = testing::randn({count}, seed);
  std::vector<double> v(a.begin(), a.end());
  for (double& x : v) x += mean;
  return v;
}

template <class Forward, class Backward>
Results run(Forward forward, Backward backward, const Case& c) {
  const Layout& L = c.layout;
  const std::size_t count = L.groups * L.n;
  const std::size_t params = L.kind == Groups::rows ? L.n : L.groups;
  const std::vector<double> x = values(count, 1, 3.0), dy = values(count, 2);
  const std::vector<double> gamma = values(params, 3), beta = values(params, 4);
  Results r;
  r.y.assign(count, 0.0);
  r.dx.assign(count, 0.0);
  r.dgamma.assign(params, 0.0);
  r.dbeta.assign(params, 0.0);
  if (c.mode == Statistics::constant)  // BatchNorm eval: running statistics given
    for (std::size_t g = 0; g < L.groups; ++g) r.stats.push_back({0.1 * double(g), 1.5, 1.0 / std::sqrt(1.5 + 1e-5)});
  forward(x.data(), r.y.data(), L, c.mode, 1e-5, r.stats, c.affine ? gamma.data() : nullptr,
          c.affine ? beta.data() : nullptr);
  backward(x.data(), dy.data(), L, r.stats, c.affine ? gamma.data() : nullptr, c.mode, r.dx.data(),
           r.dgamma.data(), r.dbeta.data());
  return r;
}

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool close(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= 1e-12 * (1.0 + std::abs(b[i])))) return false;
  return true;
}

}  // namespace

TEST_CASE("normalize kernel: fast == reference for every layout, statistics mode and size", "[ops][kernel]") {
  for (Groups kind : {Groups::rows, Groups::columns})
    for (Statistics mode : {Statistics::centered, Statistics::uncentered, Statistics::constant})
      for (std::size_t n : {1, 2, 3, 4, 5, 7, 16, 33, 130})
        for (std::size_t groups : {1, 3, 17})
          for (bool affine : {true, false}) {
            const Case c{{kind, groups, n}, mode, affine};
            INFO("layout " << (kind == Groups::rows ? "rows" : "columns") << ", mode " << int(mode) << ", n " << n
                           << ", groups " << groups << ", affine " << affine);
            const Results ref = run(reference::normalize_forward, reference::normalize_backward, c);
            const Results fast = run(fast::normalize_forward, fast::normalize_backward, c);
            CHECK(bitwise_equal(fast.dbeta, ref.dbeta));
            if (n <= 3 || mode == Statistics::constant) {  // the same statistics, bit for bit
              CHECK(bitwise_equal(fast.y, ref.y));
              CHECK(bitwise_equal(fast.dgamma, ref.dgamma));
            } else {
              CHECK(close(fast.y, ref.y));
              CHECK(close(fast.dgamma, ref.dgamma));
            }
            if (mode == Statistics::constant) CHECK(bitwise_equal(fast.dx, ref.dx));
            else CHECK(close(fast.dx, ref.dx));
            for (std::size_t g = 0; g < groups; ++g) {
              CHECK(fast.stats[g].mean == Approx(ref.stats[g].mean).epsilon(1e-13).margin(1e-15));
              CHECK(fast.stats[g].rstd == Approx(ref.stats[g].rstd).epsilon(1e-13));
            }
          }
}

TEST_CASE("normalize kernel: fast == reference on a large output (streaming stores)", "[ops][kernel]") {
  // 16,257 rows of 129 values: 16.8 MB, above the fast kernel's streaming threshold
  // (16 MiB), with an odd row length so rows start at unaligned addresses.
  const Case c{{Groups::rows, 16257, 129}, Statistics::centered, true};
  const Results ref = run(reference::normalize_forward, reference::normalize_backward, c);
  const Results fast = run(fast::normalize_forward, fast::normalize_backward, c);
  CHECK(close(fast.y, ref.y));
  CHECK(close(fast.dx, ref.dx));
  CHECK(close(fast.dgamma, ref.dgamma));
  CHECK(bitwise_equal(fast.dbeta, ref.dbeta));
}

TEST_CASE("normalize kernel: the two kernels do differ in their last bits (the tolerance is needed)",
          "[ops][kernel]") {
  // If this failed, the fast kernel would have lost its partial sums, or the reference
  // its single running sum: either way the comments above would no longer be true.
  const Case c{{Groups::rows, 64, 1000}, Statistics::centered, true};
  const Results ref = run(reference::normalize_forward, reference::normalize_backward, c);
  const Results fast = run(fast::normalize_forward, fast::normalize_backward, c);
  CHECK_FALSE(bitwise_equal(fast.dx, ref.dx));
  CHECK(close(fast.dx, ref.dx));
}

TEST_CASE("normalize kernel: the ops run the kernel that use_fast_kernels picks, in every build",
          "[ops][kernel][layer_norm]") {
  // The one switch (normalize_kernel.hpp): what gdb's `set var` flips. Rows of 1000 values,
  // where the two kernels differ in their last bits, so each result shows which one ran.
  const Case c{{Groups::rows, 64, 1000}, Statistics::centered, true};
  const Results ref = run(reference::normalize_forward, reference::normalize_backward, c);
  const Results fast = run(fast::normalize_forward, fast::normalize_backward, c);
  auto as_array = [](const std::vector<double>& v, const Shape& s) { return Array(xt::adapt(v, s)); };
  const Shape shape{64, 1000};
  const Tensor x(as_array(values(64 * 1000, 1, 3.0), shape), true, "x");
  const Tensor gamma(as_array(values(1000, 3), {1000}), true, "gamma"), beta(as_array(values(1000, 4), {1000}), true);
  const Array dy = as_array(values(64 * 1000, 2), shape);
  auto flat = [](const Array& a) { return std::vector<double>(a.begin(), a.end()); };

  const bool start = use_fast_kernels;
  for (const bool use_fast : {false, true}) {
    INFO("use_fast_kernels = " << use_fast);
    use_fast_kernels = use_fast;
    const Results& expected = use_fast ? fast : ref;
    Tensor xi = x.detach().requires_grad_(), g = gamma.detach().requires_grad_(), b = beta.detach().requires_grad_();
    Tensor y = layer_norm(xi, {1000}, g, b);
    y.backward(dy);
    CHECK(bitwise_equal(flat(y.value()), expected.y));
    CHECK(bitwise_equal(flat(xi.grad()), expected.dx));
    CHECK(bitwise_equal(flat(g.grad()), expected.dgamma));
  }
  use_fast_kernels = start;
}
