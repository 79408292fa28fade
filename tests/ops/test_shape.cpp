// transpose, permute and reshape: gradchecks, values, errors.
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("transpose: 2-D gradcheck and values", "[ops][transpose]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return transpose(in[0]); }, Tensors{param({3, 4}, 31)});
  const Tensor y = transpose(constant(Array{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}));
  CHECK(y.value() == Array{{1.0, 4.0}, {2.0, 5.0}, {3.0, 6.0}});
}

TEST_CASE("transpose: two-axis form on 3-D, negative dims", "[ops][transpose]") {
  for (const auto& [d0, d1] : std::vector<std::pair<long, long>>{{0, 1}, {0, 2}, {1, 2}, {-1, -2}, {2, 0}, {1, 1}}) {
    INFO("dims " << d0 << ", " << d1);
    REQUIRE_GRADCHECK(([d0 = d0, d1 = d1](const Tensors& in) { return transpose(in[0], d0, d1); }),
                      Tensors{param({2, 3, 4}, 32)});
  }
  const Tensor t = constant(xt::arange<double>(24.0).reshape({2, 3, 4}));
  const Tensor y = transpose(t, 0, 2);
  CHECK(y.shape() == Shape{4, 3, 2});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) CHECK(y.value()(k, j, i) == t.value()(i, j, k));
  CHECK(transpose(t, -1, -2).shape() == Shape{2, 4, 3});
  CHECK(transpose(transpose(t, 1, 2), 1, 2).value() == t.value());
}

TEST_CASE("transpose: bad dims are refused", "[ops][transpose][errors]") {
  Tensor x = param({2, 3, 4}, 33, "x");
  REQUIRE_THROWS_WITH(transpose(x), Catch::StartsWith("transpose:") && Catch::Contains("'x' (2, 3, 4)") &&
                                        Catch::Contains("2-D"));
  REQUIRE_THROWS_AS(transpose(x, 0, 3), ShapeError);
  REQUIRE_THROWS_WITH(transpose(x, 0, 3), Catch::StartsWith("transpose:") && Catch::Contains("dim 3") &&
                                              Catch::Contains("'x' (2, 3, 4)"));
  REQUIRE_THROWS_WITH(transpose(x, -4, 0), Catch::Contains("dim -4") && Catch::Contains("(2, 3, 4)"));
}

TEST_CASE("reshape: gradcheck (with -1) and values", "[ops][reshape]") {
  const std::vector<std::vector<long>> shapes{{6, 4}, {-1, 4}, {2, -1, 2}, {24}, {-1}, {4, 3, 2}};
  for (const std::vector<long>& shape : shapes) {
    INFO("shape " << Catch::Detail::stringify(shape));
    REQUIRE_GRADCHECK([shape](const Tensors& in) { return reshape(in[0], shape); }, Tensors{param({2, 3, 4}, 34)});
  }
  const Tensor y = reshape(constant(Array{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}), {3, -1});
  CHECK(y.shape() == Shape{3, 2});
  CHECK(y.value() == Array{{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});  // row-major order is kept
  CHECK(reshape(constant(Array{7.0}), {}).dim() == 0);
  CHECK(reshape(constant(Array(7.0)), {1, 1}).shape() == Shape{1, 1});
}

TEST_CASE("reshape: wrong element counts and bad -1 are refused", "[ops][reshape][errors]") {
  Tensor x = param({2, 3}, 35, "x");
  REQUIRE_THROWS_AS(reshape(x, {4, 2}), ShapeError);
  REQUIRE_THROWS_WITH(reshape(x, {4, 2}), Catch::StartsWith("reshape:") && Catch::Contains("'x' (2, 3)") &&
                                              Catch::Contains("6 elements") && Catch::Contains("(4, 2)") &&
                                              Catch::Contains("8 elements"));
  REQUIRE_THROWS_WITH(reshape(x, {4, -1}), Catch::StartsWith("reshape:") && Catch::Contains("-1") &&
                                               Catch::Contains("'x' (2, 3)"));
  REQUIRE_THROWS_WITH(reshape(x, {-1, -1}), Catch::Contains("only one") && Catch::Contains("'x' (2, 3)"));
  REQUIRE_THROWS_WITH(reshape(x, {-2, -3}), Catch::Contains("invalid dimension -2") && Catch::Contains("'x' (2, 3)"));
}

TEST_CASE("reshape: a shape whose element count overflows is refused, not wrapped to 0", "[ops][reshape][errors]") {
  const long big = 1L << 32;  // big * big = 2^64 wraps to 0 in a size_t
  Tensor empty(Array::from_shape({0}), false, "e");
  REQUIRE_THROWS_AS(reshape(empty, {big, big}), ShapeError);
  REQUIRE_THROWS_WITH(reshape(empty, {big, big}), Catch::StartsWith("reshape:") && Catch::Contains("overflow") &&
                                                      Catch::Contains("4294967296, 4294967296"));
  REQUIRE_THROWS_WITH(reshape(empty, {big, big, -1}), Catch::StartsWith("reshape:") && Catch::Contains("overflow"));
  // An empty tensor reshapes to any shape with a 0 in it, as in torch; -1 next to a 0 cannot be inferred.
  CHECK(reshape(empty, {3, 0, 2}).shape() == Shape{3, 0, 2});
  CHECK_THROWS_AS(reshape(empty, {big, big, 0}), ShapeError);  // xtensor's strides would overflow
  CHECK_THROWS_WITH(reshape(empty, {0, -1}), Catch::StartsWith("reshape:") && Catch::Contains("-1"));
}

TEST_CASE("permute: gradcheck, values, negative dims", "[ops][shape][permute]") {
  for (const std::vector<long>& dims : std::vector<std::vector<long>>{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {-1, 0, -2}}) {
    INFO("dims " << Catch::Detail::stringify(dims));
    REQUIRE_GRADCHECK([dims](const Tensors& in) { return permute(in[0], dims); }, Tensors{param({2, 3, 4}, 36)});
  }
  const Tensor t = constant(xt::arange<double>(24.0).reshape({2, 3, 4}));
  const Tensor y = permute(t, {2, 0, 1});
  CHECK(y.shape() == Shape{4, 2, 3});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) CHECK(y.value()(k, i, j) == t.value()(i, j, k));
  CHECK(permute(t, {0, 2, 1}).value() == transpose(t, 1, 2).value());
  // The head split of attention, (B, S, H, Dh) -> (B, H, S, Dh), and back.
  const Tensor x = constant(randn({3, 5, 2, 4}, 37));
  CHECK(permute(permute(x, {0, 2, 1, 3}), {0, 2, 1, 3}).value() == x.value());
}

TEST_CASE("permute: a wrong number of dims, or a dim out of range or twice, is refused", "[ops][shape][errors]") {
  Tensor x = param({2, 3, 4}, 38, "x");
  REQUIRE_THROWS_WITH(permute(x, {0, 1}), Catch::StartsWith("permute: got 2 dims for 'x' (2, 3, 4)") &&
                                              Catch::Contains("a permutation of its 3 axes"));
  REQUIRE_THROWS_WITH(permute(x, {0, 1, 3}), Catch::StartsWith("permute: dim 3 is out of range for 'x' (2, 3, 4)"));
  REQUIRE_THROWS_WITH(permute(x, {0, 1, -3}), Catch::StartsWith("permute: dim -3 appears twice for 'x' (2, 3, 4)"));
}
