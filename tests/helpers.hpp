#pragma once
// Shared test helpers.

#include <functional>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <xtensor/xio.hpp>

#include "tapegrad/tapegrad.hpp"

namespace tapegrad::testing {

// Deterministic normal(0, 1) values of a given shape.
inline Array randn(const Shape& shape, std::uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  Array a = Array::from_shape(shape);
  for (double& v : a) v = normal(rng);
  return a;
}

// A leaf that requires grad, filled with randn.
inline Tensor param(const Shape& shape, std::uint64_t seed, const std::string& name = "", double scale = 1.0) {
  return Tensor(randn(shape, seed, scale), true, name);
}

// REQUIRE a gradcheck to pass, showing its report either way.
#define REQUIRE_GRADCHECK(fn, inputs)                                   \
  do {                                                                  \
    auto gradcheck_result_ = ::tapegrad::gradcheck((fn), (inputs));     \
    INFO(gradcheck_result_.report);                                     \
    REQUIRE(gradcheck_result_.ok);                                      \
  } while (0)

inline bool allclose(const Array& a, const Array& b, double rtol = 1e-12, double atol = 1e-12) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a.data()[i] - b.data()[i]) <= atol + rtol * std::abs(b.data()[i]))) return false;
  return true;
}

// The message of the tapegrad::Error that f throws, or "(no exception)".
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace tapegrad::testing
