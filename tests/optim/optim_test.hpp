#pragma once
// Helpers of the [optim] tests.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "optim/optim_reference.hpp"

namespace tapegrad::testing {

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

struct Trajectory {
  std::vector<double> p, q;  // values after each step, row-major, concatenated
};

// The problem of tools/optim_reference.py, replayed with a tapegrad optimizer:
// L(p) = Σ c·p²/2 + d·p, so the gradient c·p + d is set directly each step.

// A (2, 2) array from 4 reference values.
inline Array ref_array(const double* v) {
  Array a = Array::from_shape({2, 2});
  std::copy(v, v + 4, a.begin());
  return a;
}

// With `skip`, a second parameter q gets no gradient on step 1 (0-based).
inline Trajectory run_quadratic(const MakeOptimizer& make, bool skip = false) {
  namespace ref = optim_reference;
  const Array c = ref_array(ref::C), d = ref_array(ref::D), p0 = ref_array(ref::P0);
  Tensor p(p0, true, "p"), q(p0, true, "q");
  std::vector<Tensor> params{p};
  if (skip) params.push_back(q);
  auto optimizer = make(params);
  Trajectory out;
  for (int step = 0; step < ref::STEPS; ++step) {
    optimizer->zero_grad();
    for (Tensor& t : params)
      if (!(t.same(q) && step == 1)) t.accumulate_grad(c * t.value() + d);
    optimizer->step();
    out.p.insert(out.p.end(), p.value().begin(), p.value().end());
    out.q.insert(out.q.end(), q.value().begin(), q.value().end());
  }
  return out;
}

// Each value within a few ulps of PyTorch's (the same operations in the same order).
inline void require_matches(const std::vector<double>& got, const double* expected, std::size_t n) {
  REQUIRE(got.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    INFO("value " << i << " (step " << i / 4 << ", element " << i % 4 << ")");
    CHECK(got[i] == Approx(expected[i]).epsilon(1e-14).margin(1e-15));
  }
}

}  // namespace tapegrad::testing
