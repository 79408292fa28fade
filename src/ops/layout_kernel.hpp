#pragma once
// The copies behind the shape ops (internal header of src/ops): permute (transpose is one) and
// narrow's slice and its scatter back.
//
// Each exists twice, with the same arguments:
//   kernels::reference  (in shape.cpp and narrow.cpp, next to their ops)  xtensor's views: read these;
//   kernels::fast       (fast/layout_fast.cpp)  plain loops over contiguous blocks.
// kernels::use_fast_kernels (autograd/kernel_switch.hpp, the norms' switch too) picks the one the ops call; tests/ops/test_fast_layout.cpp proves the two give the same arrays
// (a copy does no arithmetic: bitwise).

#include <cstddef>
#include <vector>

#include "../autograd/kernel_switch.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::kernels {

// y's axis i is x's axis perm[i] (perm a permutation of 0 .. x.dimension() − 1), as numpy's transpose.
using PermuteCopy = Array(const Array& x, const std::vector<std::size_t>& perm);
// x's entries start .. start + length − 1 along axis `dim`, every other axis whole.
using NarrowCopy = Array(const Array& x, std::size_t dim, std::size_t start, std::size_t length);
// The other way: an array of `shape`, zero except that slice, which holds `slice`.
using NarrowScatter = Array(const Array& slice, const Shape& shape, std::size_t dim, std::size_t start);

namespace reference {
PermuteCopy permute_copy;
NarrowCopy narrow_copy;
NarrowScatter narrow_scatter;
}  // namespace reference
namespace fast {
PermuteCopy permute_copy;
NarrowCopy narrow_copy;
NarrowScatter narrow_scatter;
}  // namespace fast

// What the ops call: the kernel that use_fast_kernels picks.
inline Array permute_copy(const Array& x, const std::vector<std::size_t>& perm) {
  return use_fast_kernels ? fast::permute_copy(x, perm) : reference::permute_copy(x, perm);
}
inline Array narrow_copy(const Array& x, std::size_t dim, std::size_t start, std::size_t length) {
  return use_fast_kernels ? fast::narrow_copy(x, dim, start, length) : reference::narrow_copy(x, dim, start, length);
}
inline Array narrow_scatter(const Array& slice, const Shape& shape, std::size_t dim, std::size_t start) {
  return use_fast_kernels ? fast::narrow_scatter(slice, shape, dim, start)
                          : reference::narrow_scatter(slice, shape, dim, start);
}

}  // namespace tapegrad::kernels
