#pragma once
// gradcheck: compare backward() with central finite differences, in double,
// with PyTorch's defaults (eps 1e-6, atol 1e-5, rtol 1e-3).
//
// The function may return a tensor of any shape. It is reduced to the scalar
// L = Σ w ⊙ fn(inputs) with fixed pseudo-random weights w (a plain sum would
// hide errors: Σ layer_norm(x) does not depend on x). For every element of
// every input that requires grad, the analytic dL/dx from backward() must
// match (L(x + eps) − L(x − eps)) / (2 eps) within atol + rtol·|numeric|.
// Inputs are perturbed in place and restored exactly; their grads are reset.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  std::uint64_t seed = 0;  // for the projection weights w
};

struct GradcheckResult {
  bool ok = true;
  std::size_t checked = 0;       // elements compared
  // The worst element (largest excess over its tolerance):
  std::size_t input = 0;         // which input
  std::string input_label;       // its name and shape
  std::string index;             // "(1, 2)"
  double analytic = 0.0;
  double numeric = 0.0;
  double excess = 0.0;           // |analytic − numeric| − (atol + rtol·|numeric|); > 0 means fail
  std::string report;            // one readable paragraph
  explicit operator bool() const { return ok; }
};

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace tapegrad
