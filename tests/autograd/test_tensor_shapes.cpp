// Tensor construction with shapes at the edges: an element count that overflows size_t
// is refused with the shape named, never wrapped around to a small (or empty) tensor.
#include "helpers.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {
const std::size_t big = std::size_t{1} << 32;  // big * big = 2^64 wraps to 0
}

TEST_CASE("zeros, ones, full and randn refuse a shape whose element count overflows", "[tensor][errors]") {
  for (const Shape& shape : {Shape{big, big}, Shape{big, 2, big}, Shape{SIZE_MAX, 2}, Shape{3, SIZE_MAX / 2, 3}}) {
    INFO("shape " << shape_str(shape));
    CHECK_THROWS_AS(zeros(shape), ShapeError);
    CHECK_THROWS_WITH(zeros(shape), Catch::StartsWith("zeros:") && Catch::Contains(shape_str(shape)) &&
                                        Catch::Contains("overflow"));
    CHECK_THROWS_WITH(ones(shape), Catch::StartsWith("ones:") && Catch::Contains(shape_str(shape)));
    CHECK_THROWS_WITH(full(shape, 2.0), Catch::StartsWith("full:") && Catch::Contains(shape_str(shape)));
    Generator g(1);
    CHECK_THROWS_WITH(g.randn(shape), Catch::StartsWith("randn:") && Catch::Contains(shape_str(shape)));
    CHECK_THROWS_WITH(g.rand(shape), Catch::StartsWith("rand:") && Catch::Contains(shape_str(shape)));
  }
  // A zero anywhere makes the product 0 without overflow: an empty tensor, as in torch.
  CHECK(zeros({big, big, 0}).numel() == 0);
  CHECK(zeros({0, big, big}).shape() == Shape{0, big, big});
  CHECK(checked_numel("zeros", {2, 3, 4}) == 24);
  CHECK(checked_numel("zeros", {}) == 1);
}

TEST_CASE("a Tensor refuses an Array whose shape does not match its element count", "[tensor][errors]") {
  // xtensor computes the size of such a shape with a wrapping product: 2^64 → 0 elements.
  Array wrapped = Array::from_shape({big, big});
  REQUIRE(wrapped.size() == 0);
  CHECK_THROWS_AS(Tensor(wrapped), ShapeError);
  CHECK_THROWS_WITH(Tensor(wrapped, false, "w"),
                    Catch::StartsWith("Tensor:") && Catch::Contains("4294967296, 4294967296") &&
                        Catch::Contains("overflow"));
  CHECK_THROWS_AS(tensor(wrapped), ShapeError);
}
