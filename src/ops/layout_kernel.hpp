#pragma once
// The copies behind the shape ops (internal header of src/ops): permute (transpose is one) and
// narrow's slice and its scatter back.
//
// Each exists twice, with the same arguments:
//   kernels::reference  (in shape.cpp and narrow.cpp, next to their ops)  xtensor's views: read these;
//   kernels::fast       (fast/layout_fast.cpp)  plain loops over contiguous blocks.
// The CMake option TAPEGRAD_FAST_KERNELS picks the one the ops call (as for the norms,
// normalize_kernel.hpp); tests/ops/test_fast_layout.cpp proves the two give the same arrays
// (a copy does no arithmetic: bitwise).

#include <cstddef>
#include <vector>

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

}  // namespace tapegrad::kernels

#include "kernel_switch.hpp"  // kernels::active: the one the ops use
