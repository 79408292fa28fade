#pragma once
// Helpers shared by the op tests (tests/ops/test_*.cpp).

#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "helpers.hpp"

namespace tapegrad::testing {

// The inputs of a gradcheck: REQUIRE_GRADCHECK(fn, (Tensors{a, b})).
using Tensors = std::vector<Tensor>;

// randn values pushed `margin` away from 0, for inputs that must avoid it:
// divisors, log/sqrt/pow arguments (after abs), relu's kink.
inline Array away_from_zero(const Shape& shape, std::uint64_t seed, double margin = 0.5) {
  Array a = randn(shape, seed);
  for (double& v : a) v += v < 0.0 ? -margin : margin;
  return a;
}

// A leaf requiring grad whose values are all >= margin (for log, sqrt, pow).
inline Tensor positive_param(const Shape& shape, std::uint64_t seed, const std::string& name = "",
                             double margin = 0.5) {
  return Tensor(xt::abs(away_from_zero(shape, seed, margin)), true, name);
}

// The value of fn and the gradients of Σ w ⊙ fn(inputs) for fixed weights w:
// lets a fused op be compared with the same op composed from primitives.
struct ValueAndGrads {
  Array value;
  std::vector<Array> grads;
};

inline ValueAndGrads value_and_grads(const GradcheckFn& fn, std::vector<Tensor> inputs) {
  for (Tensor& t : inputs) t.zero_grad();
  Tensor y = fn(inputs);
  const Array w = randn(y.shape(), 12345);
  sum(mul(y, Tensor(w))).backward();
  ValueAndGrads out{y.value(), {}};
  for (Tensor& t : inputs) {
    out.grads.push_back(t.has_grad() ? t.grad() : Array());
    t.zero_grad();
  }
  return out;
}

// The fused op and the composed one agree in value and in every gradient.
#define REQUIRE_SAME_OP(fused, composed, inputs)                                                   \
  do {                                                                                             \
    const auto same_op_a_ = ::tapegrad::testing::value_and_grads((fused), (inputs));               \
    const auto same_op_b_ = ::tapegrad::testing::value_and_grads((composed), (inputs));            \
    INFO("fused value " << same_op_a_.value << "\ncomposed value " << same_op_b_.value);           \
    REQUIRE(::tapegrad::testing::allclose(same_op_a_.value, same_op_b_.value, 1e-10, 1e-12));      \
    for (std::size_t same_op_i_ = 0; same_op_i_ < same_op_a_.grads.size(); ++same_op_i_) {         \
      INFO("grad of input " << same_op_i_ << ": fused " << same_op_a_.grads[same_op_i_]            \
                            << "\ncomposed " << same_op_b_.grads[same_op_i_]);                     \
      REQUIRE(::tapegrad::testing::allclose(same_op_a_.grads[same_op_i_], same_op_b_.grads[same_op_i_], \
                                            1e-10, 1e-12));                                        \
    }                                                                                              \
  } while (0)

// A 2-D array from rows. Needed for one row or one column: Array{{1.0, 2.0}}
// is the 1-D array [1, 2] (or ambiguous), not a (1, 2) matrix.
inline Array matrix(std::initializer_list<std::initializer_list<double>> rows) {
  return Array(xt::xtensor<double, 2>(rows));
}

// Attention inputs q (..., Sq, Dh), k (..., Sk, Dh), v (..., Sk, Dv) from randn, each requiring grad
// (tests/ops/test_attention*.cpp).
inline std::vector<Tensor> attention_inputs(const Shape& batch, std::size_t sq, std::size_t sk, std::size_t dh,
                                            std::size_t dv, std::uint64_t seed) {
  const auto with = [&](std::size_t rows, std::size_t cols) {
    Shape s = batch;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  return {param(with(sq, dh), seed, "q"), param(with(sk, dh), seed + 1, "k"), param(with(sk, dv), seed + 2, "v")};
}

// A tensor that does not require grad, for forward-value checks (nothing is recorded).
inline Tensor constant(Array value) { return Tensor(std::move(value)); }

}  // namespace tapegrad::testing
