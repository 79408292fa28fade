// The Catch2 binary's main. It runs with one OpenBLAS thread, as ctest (OPENBLAS_NUM_THREADS=1) and the lab
// (tapegrad-depth) do, so that `build/tests/tapegrad_tests` run by hand checks the same bits: e.g. the lab's
// chunked evaluation is bitwise one whole forward with one BLAS thread (tests/lab/test_lab_eval_chunks.cpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

extern "C" void openblas_set_num_threads(int num_threads);  // OpenBLAS's own API (cblas.h does not declare it)

int main(int argc, char* argv[]) {
  openblas_set_num_threads(1);
  return Catch::Session().run(argc, argv);
}
