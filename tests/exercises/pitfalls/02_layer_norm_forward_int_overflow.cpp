// A C++ pitfall the grader names at its line: signed integer overflow (UBSan), here in a row count
// kept in an int and scaled.
#include <climits>
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

tapegrad::Array layer_norm_forward(const tapegrad::Array& x, const tapegrad::Array& gamma,
                                   const tapegrad::Array& beta, double eps) {
  int big = INT_MAX - 1;
  big += static_cast<int>(x.size());  // the line the report names: 12
  (void)big, (void)gamma, (void)beta, (void)eps;
  return x;
}
