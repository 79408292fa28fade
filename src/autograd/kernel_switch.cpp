// The one switch between the reference kernels and the tuned ones: its definition, with the
// value it starts at (kernel_switch.hpp says which kernels it picks and how to flip it).
#include "kernel_switch.hpp"

namespace tapegrad::kernels {

bool use_fast_kernels = TAPEGRAD_FAST_KERNELS;

}  // namespace tapegrad::kernels
