#pragma once
// kernels::active, the implementation the ops call (internal header of src/ops): kernels::fast
// when the CMake option TAPEGRAD_FAST_KERNELS is ON (the default), kernels::reference when OFF.
// Both are always compiled, so the tests can check that they agree. Include it after declaring
// both namespaces' functions.

namespace tapegrad::kernels {

namespace fast {}
namespace reference {}

#if TAPEGRAD_FAST_KERNELS
namespace active = fast;
#else
namespace active = reference;
#endif

}  // namespace tapegrad::kernels
