// matmul and the gemm helper: gradchecks (2-D and batched rows), values by
// hand, gemm's folded transposes against transpose() + matmul, errors.
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {
Tensor matmul_inputs(const Tensors& in) { return matmul(in[0], in[1]); }
}  // namespace

TEST_CASE("matmul: 2x3 @ 3x2 by hand", "[ops][matmul]") {
  const Tensor a = constant(Array{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  const Tensor b = constant(Array{{7.0, 8.0}, {9.0, 10.0}, {11.0, 12.0}});
  CHECK(matmul(a, b).value() == Array{{58.0, 64.0}, {139.0, 154.0}});
  // Row and column vectors, and a 1x1 result.
  CHECK(matmul(constant(matrix({{1.0, 2.0, 3.0}})), b).value() == matrix({{58.0, 64.0}}));
  const Tensor column = constant(matrix({{1.0}, {1.0}, {1.0}}));
  CHECK(matmul(constant(matrix({{1.0, 2.0, 3.0}})), column).value() == matrix({{6.0}}));
}

TEST_CASE("matmul: 2-D gradcheck, both or one side requiring grad", "[ops][matmul]") {
  const std::vector<std::pair<Shape, Shape>> cases{{{3, 4}, {4, 5}}, {{1, 4}, {4, 1}}, {{4, 1}, {1, 3}}};
  for (const auto& [sa, sb] : cases) {
    INFO("a " << shape_str(sa) << " @ b " << shape_str(sb));
    Tensor a = param(sa, 41, "a"), b = param(sb, 42, "b");
    REQUIRE_GRADCHECK(matmul_inputs, (Tensors{a, b}));
    REQUIRE_GRADCHECK(matmul_inputs, (Tensors{a, Tensor(b.value())}));
    REQUIRE_GRADCHECK(matmul_inputs, (Tensors{Tensor(a.value()), b}));
  }
}

TEST_CASE("matmul: (batch, seq, k) @ (k, n) gradcheck and values", "[ops][matmul]") {
  Tensor x = param({2, 3, 4}, 43, "x"), w = param({4, 5}, 44, "w");
  REQUIRE_GRADCHECK(matmul_inputs, (Tensors{x, w}));
  REQUIRE_GRADCHECK(matmul_inputs, (Tensors{param({2, 1, 3, 4}, 45), w}));
  // Each batch element is an ordinary 2-D product.
  const Tensor y = matmul(constant(x.value()), constant(w.value()));
  CHECK(y.shape() == Shape{2, 3, 5});
  for (std::size_t i = 0; i < 2; ++i) {
    const Array xi = xt::view(x.value(), i);
    CHECK(allclose(xt::view(y.value(), i), matmul(constant(xi), constant(w.value())).value()));
  }
}

TEST_CASE("matmul: an empty inner dimension gives zeros of the right shape", "[ops][matmul]") {
  Tensor a(Array(xt::zeros<double>({3, 0})), true), b(Array(xt::zeros<double>({0, 2})), true);
  const Tensor y = matmul(a, b);
  CHECK(y.shape() == Shape{3, 2});
  CHECK(y.value() == Array(xt::zeros<double>({3, 2})));
  sum(y).backward();
  CHECK(a.grad().shape() == a.value().shape());
  CHECK(b.grad().shape() == b.value().shape());
  CHECK(matmul(constant(Array(xt::zeros<double>({2, 3, 0}))), constant(Array(xt::zeros<double>({0, 4})))).shape() ==
        Shape{2, 3, 4});
}

TEST_CASE("matmul: inner-dimension mismatch and wrong ranks are refused", "[ops][matmul][errors]") {
  Tensor a = param({2, 3}, 46, "a"), b = param({4, 2}, 47, "b");
  REQUIRE_THROWS_AS(matmul(a, b), ShapeError);
  REQUIRE_THROWS_WITH(matmul(a, b), Catch::StartsWith("matmul:") && Catch::Contains("'a' (2, 3)") &&
                                        Catch::Contains("'b' (4, 2)") && Catch::Contains("inner"));
  REQUIRE_THROWS_WITH(matmul(param({2, 5, 3}, 48), b), Catch::Contains("(2, 5, 3)") && Catch::Contains("(4, 2)"));
  Tensor v = param({3}, 49, "v");
  REQUIRE_THROWS_WITH(matmul(v, param({3, 2}, 50)), Catch::StartsWith("matmul:") && Catch::Contains("'v' (3)") &&
                                                         Catch::Contains("(3, 2)"));
  REQUIRE_THROWS_WITH(matmul(a, v), Catch::StartsWith("matmul:") && Catch::Contains("'a' (2, 3)") &&
                                        Catch::Contains("'v' (3)"));
  REQUIRE_THROWS_WITH(matmul(a, param({2, 3, 2}, 51)), Catch::StartsWith("matmul:") && Catch::Contains("(2, 3, 2)"));
}

TEST_CASE("gemm: folded transposes match transpose() + matmul - beta accumulates", "[ops][matmul][gemm]") {
  const Array A = randn({3, 4}, 52), B = randn({4, 5}, 53);
  const Array At = xt::transpose(A), Bt = xt::transpose(B);
  const Array expected = matmul(constant(A), constant(B)).value();
  CHECK(allclose(gemm(A, B), expected));
  CHECK(allclose(gemm(At, B, true, false), expected));
  CHECK(allclose(gemm(A, Bt, false, true), expected));
  CHECK(allclose(gemm(At, Bt, true, true), expected));
  CHECK(allclose(gemm(B, A, true, true), transpose(constant(expected)).value()));
  Array out = xt::ones<double>({3, 5});
  gemm(A, B, out, false, false, 2.0);
  CHECK(allclose(out, Array(expected + 2.0)));
  REQUIRE_THROWS_WITH(gemm(A, A), Catch::StartsWith("gemm:") && Catch::Contains("(3, 4)"));
  REQUIRE_THROWS_WITH(gemm(A, B, out, true, false, 1.0), Catch::StartsWith("gemm:") && Catch::Contains("(3, 4)^T"));
  Array wrong = xt::ones<double>({2, 2});
  REQUIRE_THROWS_WITH(gemm(A, B, wrong, false, false, 1.0), Catch::Contains("(2, 2)") && Catch::Contains("(3, 5)"));
}
