// Reference solution of exercise 16 (exercises/16_rope.cpp): both styles.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::RopeStyle;

// Pair i of a row: features (2i, 2i + 1) interleaved, (i, i + D/2) half_split; rotated by sign·pos·θ_i,
// θ_i = base^(−2i/D). The backward is the same rotation by −angle (a rotation's inverse is its transpose).
static Array rotate_pairs(const Array& x, const std::vector<std::int64_t>& positions, double base, RopeStyle style,
                          double sign) {
  const std::size_t D = x.shape().back(), S = x.shape()[x.dimension() - 2], rows = x.size() / D;
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    const double pos = double(positions[r % S]);  // rows run over (..., S): row r is position r % S
    for (std::size_t i = 0; i < D / 2; ++i) {
      const double angle = sign * pos * std::pow(base, -2.0 * double(i) / double(D));
      const std::size_t a = style == RopeStyle::interleaved ? 2 * i : i;
      const std::size_t b = style == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;
      const double xa = x.data()[r * D + a], xb = x.data()[r * D + b];
      y.data()[r * D + a] = xa * std::cos(angle) - xb * std::sin(angle);
      y.data()[r * D + b] = xa * std::sin(angle) + xb * std::cos(angle);
    }
  }
  return y;
}

Array rope_forward(const Array& x, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  return rotate_pairs(x, positions, base, style, +1.0);
}

Array rope_backward(const Array& dy, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  return rotate_pairs(dy, positions, base, style, -1.0);
}
