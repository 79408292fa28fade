// The one switch between the reference kernels and the tuned ones (kernel_switch.hpp says
// which kernels it picks). It starts as the CMake option TAPEGRAD_FAST_KERNELS; tests and gdb
// (`set var tapegrad::kernels::use_fast_kernels = false`) may flip it at run time.
#include "../kernel_switch.hpp"

namespace tapegrad::kernels {

bool use_fast_kernels = TAPEGRAD_FAST_KERNELS;

}  // namespace tapegrad::kernels
