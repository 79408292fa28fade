#pragma once
// Errors: every message names the op, the shapes involved and what was expected.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tapegrad {

using Shape = std::vector<std::size_t>;

// Base class of every error tapegrad throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Shapes that do not fit together (broadcasting, matmul, parameters, ...).
class ShapeError : public Error {
 public:
  using Error::Error;
};

// Misuse of the tape: backward twice, grad of a freed tensor, in-place edits.
class AutogradError : public Error {
 public:
  using Error::Error;
};

// "(2, 3)" like NumPy and PyTorch print shapes; "()" for a scalar.
std::string shape_str(const Shape& shape);

template <class S>
std::string shape_str(const S& shape) {
  return shape_str(Shape(shape.begin(), shape.end()));
}

// "(1, 2)": the index of element `flat` (row-major) of an array of this shape, as shape_str writes it;
// "()" for a scalar. How gradcheck and the exercises' grader name the worst element.
std::string index_str(const Shape& shape, std::size_t flat);

}  // namespace tapegrad
