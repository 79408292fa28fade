#pragma once
// The one switch between the plain reference kernels a learner reads and the tuned ones
// (internal header of the library): the norms' (ops/normalize_kernel.hpp), the shape ops' copies
// (ops/layout_kernel.hpp), multi-head attention (ops/attention.cpp), nn::MultiheadAttention's fused
// grouped-query path (nn/multihead_attention.cpp) and the precision emulation's
// rounding (autograd/precision.cpp). Both are always compiled, so the tests can check that they agree.
// Defined beside it, in kernel_switch.cpp.

namespace tapegrad::kernels {

// true runs the fast kernels, false the reference ones. It starts as the CMake option
// TAPEGRAD_FAST_KERNELS (ON by default, OFF in the debug preset); in gdb,
// `set var tapegrad::kernels::use_fast_kernels = false` sends the next `step` into the reference.
extern bool use_fast_kernels;

}  // namespace tapegrad::kernels
