// rotary_embedding (RoPE): argument checks, the pair rotation shared by the forward (by +angle)
// and its named backward rotary_embedding_backward (by −angle), and the composed half_split
// version from primitive ops.
#include "tapegrad/ops/rotary_embedding.hpp"

#include <cmath>
#include <string>

#include "../argument_check.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/matmul.hpp"
#include "tapegrad/ops/narrow.hpp"

namespace tapegrad {

namespace {

// The checks every form of the op makes; returns D.
std::size_t checked_dim(const char* op, const Tensor& x, const std::vector<std::int64_t>& positions, double base) {
  if (x.dim() < 2)
    throw ShapeError(std::string(op) + ": expected x of shape (..., S, D) with D even, got " + x.label());
  const Shape& xs = x.shape();
  const std::size_t S = xs[xs.size() - 2], D = xs.back();
  if (D % 2 != 0)
    throw ShapeError(std::string(op) + ": expected x of shape (..., S, D) with D even (features rotate in pairs), got " +
                     x.label() + " with D = " + std::to_string(D));
  if (positions.size() != S)
    throw ShapeError(std::string(op) + ": positions has length " + std::to_string(positions.size()) + " but x " +
                     x.label() + " has S = " + std::to_string(S) + " rows (axis -2); expected one position per row");
  detail::require(base > 0.0 && std::isfinite(base), op, "base", base,  // NaN fails too
                  "a finite number > 0, e.g. 10000, for x " + x.label());
  return D;
}

// Where pair i of a row of D features sits: (2i, 2i + 1) interleaved, (i, i + D/2) half_split.
std::size_t first_of_pair(RopeStyle style, std::size_t i) { return style == RopeStyle::interleaved ? 2 * i : i; }
std::size_t second_of_pair(RopeStyle style, std::size_t i, std::size_t D) {
  return style == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;
}

// out = each pair of `in` rotated by sign·angle: (a, b) -> (a c − b s, a s + b c) with
// c = cos(sign·angle), s = sin(sign·angle). in and out have shape (..., S, D); angles (S, D/2).
// The cosines and sines depend on (s, i) only, not on the leading (batch, head) axes, so they are
// taken once per angle (S·D/2 of each) rather than once per row (B·H·S·D/2, the rotation's cost
// many times over).
Array rotate_pairs(const Array& in, const Array& angles, RopeStyle style, double sign) {
  Array out = Array::from_shape(in.shape());
  const std::size_t D = in.shape().back(), S = angles.shape()[0], half = D / 2;
  const std::size_t rows = D == 0 ? 0 : in.size() / D;  // every (..., s) row
  Array cosines = Array::from_shape(angles.shape()), sines = Array::from_shape(angles.shape());
  for (std::size_t a = 0; a < angles.size(); ++a) {
    cosines.data()[a] = std::cos(angles.data()[a]);
    sines.data()[a] = sign * std::sin(angles.data()[a]);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t s = r % S;  // rows run over S fastest, after the leading axes
    const double* x = in.data() + r * D;
    double* y = out.data() + r * D;
    for (std::size_t i = 0; i < half; ++i) {
      const double c = cosines(s, i), sn = sines(s, i);
      const std::size_t ia = first_of_pair(style, i), ib = second_of_pair(style, i, D);
      const double a = x[ia], b = x[ib];
      y[ia] = a * c - b * sn;
      y[ib] = a * sn + b * c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> position_range(std::int64_t offset, std::size_t count) {
  std::vector<std::int64_t> positions(count);
  for (std::size_t s = 0; s < count; ++s) positions[s] = offset + static_cast<std::int64_t>(s);
  return positions;
}

// angle(s, i) = positions[s] · base^(−2i/D)
Array rotary_angles(const std::vector<std::int64_t>& positions, std::size_t D, double base) {
  Array angles = Array::from_shape({positions.size(), D / 2});
  for (std::size_t i = 0; i < D / 2; ++i) {
    const double theta = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(D));
    for (std::size_t s = 0; s < positions.size(); ++s) angles(s, i) = static_cast<double>(positions[s]) * theta;
  }
  return angles;
}

std::vector<std::size_t> rope_half_split_order(std::size_t D) {
  if (D % 2 != 0)
    throw ShapeError("rope_half_split_order: expected an even D (features rotate in pairs), got D = " +
                     std::to_string(D));
  std::vector<std::size_t> order(D);
  for (std::size_t i = 0; i < D / 2; ++i) {
    order[i] = 2 * i;              // the first of pair i, a
    order[i + D / 2] = 2 * i + 1;  // its partner b
  }
  return order;
}

// y: each pair (a, b) of x (pairing by `style`) rotated by angle = pos · θ_i,
//    (a, b) -> (a cos − b sin, a sin + b cos)
Tensor rotary_embedding(const Tensor& x, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  const std::size_t D = checked_dim("rotary_embedding", x, positions, base);
  Array angles = rotary_angles(positions, D, base);
  Array y = rotate_pairs(x.value(), angles, style, +1.0);
  return record("rotary_embedding", {x}, std::move(y),
                [style, angles = std::move(angles)](const Array& dy, const TapeEntry& e) {
                  rotary_embedding_backward(dy, e.inputs[0], angles, style);
                });
}

// Per pair, y = R(angle) x with R = [[cos, −sin], [sin, cos]], linear in x, so dx = Rᵀ dy. The
// transpose of a rotation is the rotation by −angle:
//   da = cos·dya + sin·dyb,  db = −sin·dya + cos·dyb
TAPEGRAD_BACKWARD void rotary_embedding_backward(const Array& dy, const Tensor& x, const Array& angles,
                                                 RopeStyle style) {
  x.accumulate_grad(rotate_pairs(dy, angles, style, -1.0));
}

namespace composed {

// x·cos + rotate_half(x)·sin, cos and sin of shape (S, D): row s is the S-th angles twice,
// (angle_0 .. angle_{D/2−1}, angle_0 .. angle_{D/2−1}), as Hugging Face's cat((freqs, freqs)).
Tensor rotary_embedding(const Tensor& x, const std::vector<std::int64_t>& positions, double base) {
  const std::size_t D = checked_dim("composed::rotary_embedding", x, positions, base), half = D / 2;
  const Array angles = rotary_angles(positions, D, base);
  Array cos_table = Array::from_shape({positions.size(), D}), sin_table = Array::from_shape({positions.size(), D});
  for (std::size_t s = 0; s < positions.size(); ++s)
    for (std::size_t j = 0; j < D; ++j) {
      cos_table(s, j) = std::cos(angles(s, j % half));
      sin_table(s, j) = std::sin(angles(s, j % half));
    }
  // cat(u, v) along the last axis = u @ [I 0] + v @ [0 I], with (D/2, D) placement matrices.
  Array to_first = Array::from_shape({half, D}), to_second = Array::from_shape({half, D});
  to_first.fill(0.0);
  to_second.fill(0.0);
  for (std::size_t i = 0; i < half; ++i) to_first(i, i) = 1.0, to_second(i, i + half) = 1.0;

  Tensor x1 = narrow(x, -1, 0, half), x2 = narrow(x, -1, half, half);
  Tensor rotated_half = add(matmul(neg(x2), Tensor(to_first)), matmul(x1, Tensor(to_second)));  // cat(−x2, x1)
  return add(mul(x, Tensor(cos_table)), mul(rotated_half, Tensor(sin_table)));
}

}  // namespace composed

}  // namespace tapegrad
