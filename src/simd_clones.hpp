#pragma once
// TAPEGRAD_SIMD_CLONES before a hot loop's function compiles it twice, for AVX2 and
// for the baseline x86-64 (SSE2), and picks one when the library is loaded (GCC's
// target_clones). The loop then runs 4 doubles at a time where the machine can, and
// the library still runs anywhere. FMA is not enabled, so both versions round
// every operation the same way and give bitwise-identical results.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TAPEGRAD_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TAPEGRAD_SIMD_CLONES
#endif
