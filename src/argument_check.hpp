#pragma once
// Internal (src/optim, src/nn): argument checks with messages that name the caller,
// the argument, its value and what was expected.

#include <sstream>
#include <string>

#include "tapegrad/autograd/error.hpp"

namespace tapegrad::detail {

// A number as a person would write it: 1e-08, -0.1, 0.9, nan (not to_string's 0.000000).
inline std::string num(double v) {
  std::ostringstream out;
  out.precision(10);
  out << v;
  return out.str();
}

// Throws Error("<who>: invalid <what>=<value> (expected <expected>)") unless ok.
// Write `ok` so that NaN fails it: !(x >= 0) rather than x < 0.
inline void require(bool ok, const std::string& who, const std::string& what, double value,
                    const std::string& expected) {
  if (!ok) throw Error(who + ": invalid " + what + "=" + num(value) + " (expected " + expected + ")");
}

}  // namespace tapegrad::detail
