#pragma once
// What the exercises' specs (exercise_*.cpp) share: random inputs, shapes, the library's gradients.

#include <cstdint>
#include <functional>
#include <vector>

#include "grader_spec.hpp"

namespace tapegrad::exercise::detail {

// Random arrays from the library's Generator (the same numbers everywhere).
class Draw {
 public:
  explicit Draw(std::uint64_t seed);
  Array normal(const Shape& shape, double mean = 0.0, double stddev = 1.0);
  Array uniform(const Shape& shape, double lo, double hi);

 private:
  std::uint64_t seed_;
  std::uint64_t calls_ = 0;
};
// The array as (rows, last) in row-major order: rows = product of all axes but the last.
std::size_t last_dim(const Array& a);
std::size_t rows_of(const Array& a);
// The library's autograd: value and gradients of `f` at `inputs` for upstream gradient dy.
Outputs value_and_grads(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Array>& inputs,
                        const Array& dy);

// A result off by a constant factor (constant_factor.cpp): f with got = f·expected on every element (NaN if
// none), and the name of the factors one output shows on its failing cases: a size of each case ("N", the
// last axis; "M", the rows; "√N", "√M") or one integer 2..16 ("" if neither).
double scale_between(const Array& got, const Array& expected);
std::string factor_name(const std::vector<double>& factors, const std::vector<const Case*>& cases);

}  // namespace tapegrad::exercise::detail
