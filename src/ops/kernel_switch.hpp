#pragma once
// The one switch between the plain reference kernels a learner reads and the tuned ones
// (internal header of src/ops): the norms' (normalize_kernel.hpp) and the shape ops' copies
// (layout_kernel.hpp). Both are always compiled, so the tests can check that they agree.

namespace tapegrad::kernels {

// true runs the fast kernels, false the reference ones. It starts as the CMake option
// TAPEGRAD_FAST_KERNELS (ON by default, OFF in the debug preset); in gdb,
// `set var tapegrad::kernels::use_fast_kernels = false` sends the next `step` into the reference.
extern bool use_fast_kernels;

}  // namespace tapegrad::kernels
