// Tensor construction with shapes at the edges: an element count that overflows is refused
// with the shape named, never wrapped around to a small (or empty) tensor.
#include "helpers.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {
const std::size_t big = std::size_t{1} << 32;  // big * big = 2^64 wraps to 0
}

TEST_CASE("zeros, ones, full and randn refuse a shape whose element count overflows", "[tensor][errors]") {
  for (const Shape& shape : {Shape{big, big}, Shape{big, 2, big}, Shape{SIZE_MAX, 2}, Shape{3, SIZE_MAX / 2, 3},
                             Shape{big, big / 2}, Shape{0, big, big}, Shape{big, big, 0}}) {
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
  // (2^63 elements: no size_t overflow, but no memory can hold them; with a 0, xtensor's
  // strides would still overflow.) A 0 next to reasonable dimensions is an empty tensor.
  CHECK(zeros({0, 1000, 1000}).numel() == 0);
  CHECK(checked_numel("zeros", {2, 3, 4}) == 24);
  CHECK(checked_numel("zeros", {}) == 1);
}
