// batched_matmul: one product per leading index, by hand and against matmul slice by slice; gradchecks; errors.
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("batched_matmul: two 2x2 products by hand", "[ops][batched_matmul]") {
  const Tensor a = constant(Array{{{1.0, 2.0}, {3.0, 4.0}}, {{1.0, 0.0}, {0.0, -1.0}}});
  const Tensor b = constant(Array{{{1.0, 0.0}, {0.0, 1.0}}, {{5.0, 6.0}, {7.0, 8.0}}});
  CHECK(batched_matmul(a, b).value() == Array{{{1.0, 2.0}, {3.0, 4.0}}, {{5.0, 6.0}, {-7.0, -8.0}}});
}

TEST_CASE("batched_matmul: each batch index is matmul of its slices", "[ops][batched_matmul]") {
  const Tensor a = constant(randn({2, 3, 4, 5}, 1)), b = constant(randn({2, 3, 5, 2}, 2));
  const Array y = batched_matmul(a, b).value();
  REQUIRE(y.shape() == Shape{2, 3, 4, 2});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const Tensor ai(Array(xt::view(a.value(), i, j))), bj(Array(xt::view(b.value(), i, j)));
      CHECK(allclose(Array(xt::view(y, i, j)), matmul(ai, bj).value(), 1e-14, 1e-14));
    }
}

TEST_CASE("batched_matmul: gradcheck, 2-D to 4-D, one or both sides requiring grad", "[ops][batched_matmul][gradcheck]") {
  const auto fn = [](const Tensors& t) { return batched_matmul(t[0], t[1]); };
  for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{
           {{3, 4}, {4, 2}}, {{2, 3, 4}, {2, 4, 1}}, {{2, 2, 1, 3}, {2, 2, 3, 3}}}) {
    INFO(shape_str(sa) << " @ " << shape_str(sb));
    Tensor a = param(sa, 3, "a"), b = param(sb, 4, "b");
    REQUIRE_GRADCHECK(fn, (Tensors{a, b}));
    REQUIRE_GRADCHECK(fn, (Tensors{a, Tensor(b.value())}));
    REQUIRE_GRADCHECK(fn, (Tensors{Tensor(a.value()), b}));
  }
}

TEST_CASE("batched_matmul: bad shapes are clear errors", "[ops][batched_matmul][errors]") {
  const auto run = [](const Shape& sa, const Shape& sb) {
    return message_of([&] { batched_matmul(param(sa, 5, "a"), param(sb, 6, "b")); });
  };
  CHECK_THAT(run({2, 3, 4}, {2, 5, 2}), Catch::Contains("batched_matmul: inner dimensions differ: 'a' (2, 3, 4) @ 'b' (2, 5, 2)"));
  CHECK_THAT(run({2, 3, 4}, {3, 4, 2}), Catch::Contains("batch axes differ") && Catch::Contains("axis 0: 2 vs 3"));
  CHECK_THAT(run({2, 3, 4}, {4, 2}), Catch::Contains("same number (>= 2) of dimensions"));
  CHECK_THAT(run({4}, {4}), Catch::Contains("same number (>= 2) of dimensions"));
}
