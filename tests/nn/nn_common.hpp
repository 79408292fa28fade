#pragma once
// Helpers shared by the module tests (tests/nn/test_*.cpp).

#include <string>
#include <vector>

#include "helpers.hpp"

namespace tapegrad::testing {

// Gradcheck a module: its input and every parameter.
inline void require_module_gradcheck(nn::Module& m, const Tensor& x) {
  std::vector<Tensor> inputs{x};
  for (auto& p : m.parameters()) inputs.push_back(p);
  REQUIRE_GRADCHECK([&m](auto& in) { return m(in[0]); }, inputs);
}

// The names of named tensors, in order.
inline std::vector<std::string> names(const NamedTensors& named) {
  std::vector<std::string> out;
  for (auto& [n, t] : named) out.push_back(n);
  return out;
}

}  // namespace tapegrad::testing
