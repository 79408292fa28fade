// linear, residual, add_and_norm.
#include "helpers.hpp"

using namespace tapegrad;
using tapegrad::testing::allclose;
using tapegrad::testing::param;

TEST_CASE("linear: y = x Wᵀ + b by hand", "[layers][linear]") {
  Tensor x(Array({{1.0, 2.0, 3.0}}));
  Tensor W(Array({{1.0, 0.0, -1.0}, {0.5, 0.5, 0.5}}));
  Tensor b(Array{10.0, 20.0});
  Tensor y = linear(x, W, b);
  CHECK(y.value() == Array({{8.0, 23.0}}));
}

TEST_CASE("linear: gradcheck, 2-D and 3-D, with and without bias - equals matmul + add", "[layers][linear][gradcheck]") {
  Tensor W = param({4, 3}, 2, "W"), b = param({4}, 3, "b");
  Tensor x2 = param({5, 3}, 1, "x"), x3 = param({2, 5, 3}, 4, "x");
  REQUIRE_GRADCHECK([](auto& in) { return linear(in[0], in[1], in[2]); }, (std::vector<Tensor>{x2, W, b}));
  REQUIRE_GRADCHECK([](auto& in) { return linear(in[0], in[1], in[2]); }, (std::vector<Tensor>{x3, W, b}));
  REQUIRE_GRADCHECK([](auto& in) { return linear(in[0], in[1]); }, (std::vector<Tensor>{x3, W}));

  // Fused vs composed from primitives: x @ Wᵀ + b.
  Tensor y1 = linear(x3, W, b);
  Tensor y2 = matmul(x3, transpose(W)) + b;
  REQUIRE(allclose(y1.value(), y2.value(), 1e-14, 1e-14));
  tape().clear();
}

TEST_CASE("residual and add_and_norm keep the shape", "[layers][residual]") {
  Tensor x = param({7, 8}, 5, "x"), fx = param({7, 8}, 6, "fx");  // the seed's (L, d_model)
  CHECK(residual(x, fx).shape() == Shape{7, 8});
  CHECK(add_and_norm(x, fx).shape() == Shape{7, 8});
  REQUIRE_GRADCHECK([](auto& in) { return residual(in[0], in[1]); }, (std::vector<Tensor>{x, fx}));
  Tensor w = param({8}, 7, "gamma"), b = param({8}, 8, "beta");
  REQUIRE_GRADCHECK([](auto& in) { return add_and_norm(in[0], in[1], in[2], in[3]); },
                    (std::vector<Tensor>{x, fx, w, b}));
  // The gradient highway: d(x + F(x))/dx has the identity in it.
  Tensor x1(Array{1.0, 2.0}, true);
  sum(residual(x1, x1 * 0.0)).backward();
  CHECK(x1.grad() == Array{1.0, 1.0});
}

TEST_CASE("linear / residual: bad shapes are clear errors", "[layers][linear][errors]") {
  Tensor x = param({2, 3}, 9, "x");
  REQUIRE_THROWS_WITH(linear(x, param({4, 5}, 1, "W")), Catch::Contains("linear") && Catch::Contains("'x' (2, 3)") &&
                                                          Catch::Contains("'W' (4, 5)"));
  REQUIRE_THROWS_WITH(linear(x, param({4}, 1, "W")), Catch::Contains("weight must be 2-D"));
  REQUIRE_THROWS_WITH(linear(x, param({4, 3}, 1), param({3}, 2)), Catch::Contains("bias has shape (3)"));
  REQUIRE_THROWS_WITH(residual(x, param({2, 1}, 3, "fx")), Catch::Contains("residual") && Catch::Contains("'fx' (2, 1)"));
  tape().clear();
}
