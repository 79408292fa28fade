// Nonlinearities: gradchecks, values against PyTorch (float64), large inputs, errors.
#include "ops/op_common.hpp"

#include <cmath>

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("relu: gradcheck away from the kink and values", "[ops][relu]") {
  // Finite differences across x = 0 would straddle the kink; keep |x| >= 0.5.
  REQUIRE_GRADCHECK([](const Tensors& in) { return relu(in[0]); }, Tensors{Tensor(away_from_zero({3, 4}, 11), true)});
  CHECK(relu(constant(Array{-1.0, 0.0, 2.0, -0.0})).value() == Array{0.0, 0.0, 2.0, 0.0});
  // The subgradient at 0 is 0, as in PyTorch.
  Tensor x(Array{-1.0, 0.0, 2.0}, true);
  sum(relu(x)).backward();
  CHECK(x.grad() == Array{0.0, 0.0, 1.0});
  // NaN stays NaN (torch.relu), not a silent 0 that would hide it.
  CHECK(std::isnan(relu(constant(Array{std::nan("")})).value()(0)));
}

TEST_CASE("relu: backward at NaN passes the gradient, as PyTorch", "[ops][relu]") {
  // torch: threshold_backward zeroes the gradient only where the input is <= 0; NaN is not.
  Tensor x(Array{std::nan(""), 1.0, -2.0, 0.0}, true);
  relu(x).backward(Array{5.0, 6.0, 7.0, 8.0});
  CHECK(x.grad() == Array{5.0, 6.0, 0.0, 0.0});
}

TEST_CASE("gelu: gradcheck for both approximations and values", "[ops][gelu]") {
  for (const std::string approximate : {"none", "tanh"}) {
    INFO("approximate = " << approximate);
    REQUIRE_GRADCHECK([approximate](const Tensors& in) { return gelu(in[0], approximate); },
                      Tensors{param({3, 4}, 12, "x", 2.0)});
  }
  // torch.nn.functional.gelu in float64 at -1, 1, 2.
  const Tensor x = constant(Array{-1.0, 1.0, 2.0});
  const Array exact = gelu(x).value();
  CHECK(exact(1) == Approx(0.8413447460685429).epsilon(1e-15));
  CHECK(exact(0) == Approx(-0.15865525393145702).epsilon(1e-14));
  CHECK(exact(2) == Approx(1.9544997361036416).epsilon(1e-15));
  CHECK(gelu(x, "none").value() == exact);  // "none" is the default
  const Array approx = gelu(x, "tanh").value();
  CHECK(approx(1) == Approx(0.8411919906082768).epsilon(1e-15));
  CHECK(approx(0) == Approx(-0.15880800939172324).epsilon(1e-14));
  CHECK(approx(2) == Approx(1.954597694087775).epsilon(1e-15));
  // Far out both are x (right) and 0 (left), with no NaN.
  const Array far = gelu(constant(Array{-40.0, 40.0}), "tanh").value();
  CHECK(far == Array{-0.0, 40.0});
}

TEST_CASE("gelu: an unknown approximation is refused by name", "[ops][gelu][errors]") {
  Tensor x = param({2, 3}, 13, "x");
  REQUIRE_THROWS_AS(gelu(x, "erf"), Error);
  REQUIRE_THROWS_WITH(gelu(x, "erf"), Catch::StartsWith("gelu:") && Catch::Contains("\"erf\"") &&
                                          Catch::Contains("\"none\"") && Catch::Contains("\"tanh\"") &&
                                          Catch::Contains("'x' (2, 3)"));
}

TEST_CASE("gelu_backward: the form is named by the enum, and relu is refused by name", "[ops][gelu][errors]") {
  // Called directly (as a learner might from gdb's `call`), it takes the form as gelu_op records it.
  Tensor a = param({2, 3}, 13, "a"), b = param({2, 3}, 13, "b");
  const Array dy = xt::ones<double>({2, 3});
  gelu_backward(dy, a, Activation::gelu_tanh);
  gelu(b, "tanh").backward(dy);
  CHECK(a.grad() == b.grad());
  REQUIRE_THROWS_AS(gelu_backward(dy, a, Activation::relu), Error);
  REQUIRE_THROWS_WITH(gelu_backward(dy, a, Activation::relu),
                      Catch::StartsWith("gelu_backward:") && Catch::Contains("Activation::gelu_tanh") &&
                          Catch::Contains("got Activation::relu") && Catch::Contains("'a' (2, 3)"));
}

TEST_CASE("tanh: gradcheck and values", "[ops][tanh]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return tanh(in[0]); }, Tensors{param({3, 4}, 14)});
  const Array y = tanh(constant(Array{0.0, 0.5, -0.5, 1000.0, -1000.0})).value();
  CHECK(allclose(y, Array{0.0, 0.46211715726000974, -0.46211715726000974, 1.0, -1.0}, 1e-15, 0.0));
}

TEST_CASE("sigmoid: gradcheck, values, and no overflow for large inputs", "[ops][sigmoid]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return sigmoid(in[0]); }, Tensors{param({3, 4}, 15, "x", 3.0)});
  const Array y = sigmoid(constant(Array{0.0, 2.0, -1000.0, 1000.0})).value();
  CHECK(y(0) == 0.5);
  CHECK(y(1) == Approx(0.8807970779778823).epsilon(1e-15));
  CHECK(y(2) == 0.0);
  CHECK(y(3) == 1.0);
  Tensor x(Array{-1000.0, 1000.0}, true);
  sum(sigmoid(x)).backward();
  CHECK(x.grad() == Array{0.0, 0.0});
}

TEST_CASE("activations by name: one parser, and apply_activation records the op it names", "[ops][activation]") {
  for (const Activation a :
       {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::silu, Activation::swiglu})
    CHECK(parse_activation("test", to_string(a)) == a);
  CHECK_THROWS_WITH(parse_activation("FFN", "tanh"), "FFN: activation must be \"relu\", \"gelu\", \"gelu_tanh\", "
                                                     "\"silu\" or \"swiglu\", got \"tanh\"");
  const Tensor x(Array{-1.0, 0.5, 2.0}, true, "x");
  CHECK_THROWS_WITH(gelu(x, "exact"), "gelu: approximate must be \"none\" or \"tanh\" (as in "
                                      "torch.nn.functional.gelu), got \"exact\" for input 'x' (3)");
  tape().clear();
  CHECK(apply_activation(x, Activation::relu).value() == relu(x).value());
  CHECK(apply_activation(x, Activation::gelu).value() == gelu(x).value());
  CHECK(apply_activation(x, Activation::gelu_tanh).value() == gelu(x, "tanh").value());
  CHECK(apply_activation(x, Activation::silu).value() == silu(x).value());
  REQUIRE(tape().size() == 8);
  CHECK(tape()[0].op == "relu");
  CHECK(tape()[2].op == "gelu");
  CHECK(tape()[4].op == "gelu_tanh");
  CHECK(tape()[6].op == "silu");
  CHECK_THROWS_WITH(apply_activation(x, Activation::swiglu),
                    Catch::StartsWith("apply_activation: activation \"swiglu\" is gated") &&
                        Catch::Contains("'x' (3)") && Catch::Contains("swiglu(gate, up)"));
  tape().clear();
}

TEST_CASE("silu: gradcheck, values, far tails without overflow", "[ops][silu]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return silu(in[0]); }, Tensors{param({3, 4}, 21, "x", 3.0)});
  // F.silu in float64: x / (1 + e^−x).
  const Array y = silu(constant(Array{0.0, 1.0, -1.0, 2.5})).value();
  CHECK(y(0) == 0.0);
  CHECK(y(1) == Approx(0.7310585786300049).epsilon(1e-15));
  CHECK(y(2) == Approx(-0.2689414213699951).epsilon(1e-15));
  CHECK(y(3) == Approx(2.3103545499468914).epsilon(1e-15));
  // silu'(x) = σ(x)(1 + x(1 − σ(x))): 0.5 at 0, σ(1)(1 + σ(−1)) = 0.9276705118714869 at 1.
  Tensor x(Array{0.0, 1.0, -1.0}, true);
  sum(silu(x)).backward();
  CHECK(x.grad()(0) == 0.5);
  CHECK(x.grad()(1) == Approx(0.9276705118714869).epsilon(1e-15));
  CHECK(x.grad()(2) == Approx(1.0 - 0.9276705118714869).epsilon(1e-14));  // silu'(−x) = 1 − silu'(x)
  // e^800 overflows: a naive e^x / (1 + e^x) would give NaN; silu is x above, −0 below.
  Tensor far(Array{800.0, -800.0, 40.0, -40.0}, true);
  const Array yf = silu(far).value();
  CHECK(yf(0) == 800.0);
  CHECK(yf(1) == 0.0);
  CHECK(yf(2) == 40.0);
  CHECK(yf(3) == Approx(-40.0 * std::exp(-40.0)).epsilon(1e-14));
  sum(silu(far)).backward();
  CHECK(far.grad()(0) == 1.0);
  CHECK(far.grad()(1) == 0.0);
  for (const double g : far.grad()) CHECK(std::isfinite(g));
}

TEST_CASE("swiglu: silu(gate) ⊙ up, gradcheck of both inputs, values, errors", "[ops][swiglu]") {
  const Tensor gate = param({2, 3, 4}, 22, "gate", 2.0), up = param({2, 3, 4}, 23, "up");
  REQUIRE_GRADCHECK([](const Tensors& in) { return swiglu(in[0], in[1]); }, (Tensors{gate, up}));
  // The gate goes through silu, the up projection does not: swapping them changes the value.
  const Array g{1.0, -2.0}, u{3.0, 0.5};
  const Array y = swiglu(constant(g), constant(u)).value();
  CHECK(y(0) == Approx(3.0 * 0.7310585786300049).epsilon(1e-15));
  CHECK(y(1) == Approx(0.5 * -2.0 / (1.0 + std::exp(2.0))).epsilon(1e-15));
  CHECK(allclose(y, silu(constant(g)).value() * u, 1e-15, 0.0));
  tape().clear();
  swiglu(gate, up);
  REQUIRE(tape().size() == 1);
  CHECK(tape()[0].op == "swiglu");
  tape().clear();
  REQUIRE_THROWS_AS(swiglu(gate, param({2, 3, 5}, 24, "up5")), ShapeError);
  REQUIRE_THROWS_WITH(swiglu(gate, param({4}, 24, "up4")),
                      Catch::StartsWith("swiglu:") && Catch::Contains("'gate' (2, 3, 4)") &&
                          Catch::Contains("'up4' (4)") && Catch::Contains("same shape"));
}

TEST_CASE("swiglu: the same bits as mul(silu(gate), up), values and both gradients", "[ops][swiglu]") {
  // swiglu keeps σ(gate) from its forward; the composed pair recomputes it in silu's backward. Same products in
  // the same order, so the same values.
  const Tensors in{param({3, 50}, 25, "gate", 4.0), param({3, 50}, 26, "up")};
  const ValueAndGrads fused = value_and_grads([](const Tensors& t) { return swiglu(t[0], t[1]); }, in);
  const ValueAndGrads composed = value_and_grads([](const Tensors& t) { return mul(silu(t[0]), t[1]); }, in);
  CHECK(fused.value == composed.value);
  CHECK(fused.grads[0] == composed.grads[0]);
  CHECK(fused.grads[1] == composed.grads[1]);
}
