// The shape ops' copies (src/ops/layout_kernel.hpp): the fast loops (src/ops/fast/layout_fast.cpp)
// against the reference's xtensor views, for every permutation of 1- to 4-D arrays (with axes of
// size 1 and 0, which the fast one drops or stops at), every narrow of every axis and its scatter
// back. A copy does no arithmetic: the arrays must be bitwise equal.
#include <algorithm>
#include <cstring>

#include "../../src/ops/layout_kernel.hpp"
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

bool bitwise_equal(const Array& a, const Array& b) {
  // memcmp's pointers must not be null, even for 0 bytes (an empty array has none)
  return a.shape() == b.shape() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

const std::vector<Shape> kShapes{{7},          {3, 5},        {1, 4},        {40, 37},     {2, 3, 4},
                                 {2, 1, 4},    {3, 0, 2},     {4, 16, 4, 5}, {2, 3, 1, 5}, {5, 2, 33, 3},
                                 {1, 1, 1, 1}, {64, 16, 4, 16}};

}  // namespace

TEST_CASE("permute_copy: fast == reference for every permutation", "[ops][shape][kernel]") {
  std::uint64_t seed = 1;
  for (const Shape& shape : kShapes) {
    const Array x = randn(shape, seed++);
    std::vector<std::size_t> perm(shape.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    do {
      INFO("shape " << shape_str(shape) << ", perm " << Catch::Detail::stringify(perm));
      CHECK(bitwise_equal(kernels::fast::permute_copy(x, perm), kernels::reference::permute_copy(x, perm)));
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  const Array scalar = Array(3.0);
  CHECK(bitwise_equal(kernels::fast::permute_copy(scalar, {}), scalar));
}

TEST_CASE("narrow_copy and narrow_scatter: fast == reference for every axis, start and length",
          "[ops][narrow][kernel]") {
  std::uint64_t seed = 100;
  for (const Shape& shape : kShapes) {
    const Array x = randn(shape, seed++);
    for (std::size_t dim = 0; dim < shape.size(); ++dim)
      for (std::size_t start = 0; start <= shape[dim]; start += 1 + shape[dim] / 5)
        for (std::size_t length = 0; start + length <= shape[dim]; length += 1 + shape[dim] / 4) {
          INFO("shape " << shape_str(shape) << ", dim " << dim << ", start " << start << ", length " << length);
          const Array ref = kernels::reference::narrow_copy(x, dim, start, length);
          CHECK(bitwise_equal(kernels::fast::narrow_copy(x, dim, start, length), ref));
          CHECK(bitwise_equal(kernels::fast::narrow_scatter(ref, shape, dim, start),
                              kernels::reference::narrow_scatter(ref, shape, dim, start)));
        }
  }
}
