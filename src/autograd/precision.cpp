#include "tapegrad/autograd/precision.hpp"

#include "kernel_switch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tapegrad {

namespace {

// IEEE 754 binary16 and binary32, and Google's bfloat16 (binary32's exponent range with
// 8 significand bits). fp64 is listed for completeness: round_to never rounds to it.
const FloatFormat formats[] = {
    {"fp64", 53, -1022, 1023},
    {"fp32", 24, -126, 127},
    {"bf16", 8, -126, 127},
    {"fp16", 11, -14, 15},
};

// The precision of this thread's innermost precision_scope. In this .cpp, not a header,
// so that notebooks never JIT a thread_local (as the tape and grad mode).
thread_local Precision scope_precision = Precision::fp64;

// x rounded to the format, to nearest, ties to even: the reference a learner reads.
// Format numbers near |x| are the multiples of `quantum`, 2^(e − p + 1) for x in
// [2^e, 2^(e+1)); below the smallest normal number e stays at min_exponent, so the
// spacing stays that of the subnormals. Every step is exact in float64 except the one
// rounding decision: dividing or multiplying by a power of two only moves the exponent
// (the quotients are below 2^24, far from float64's limits), and floor() of such a
// number and the remainder are exact.
double round_to_format(double x, const FloatFormat& f) {
  if (!std::isfinite(x) || x == 0.0) return x;  // NaN, ±inf and ±0 are themselves
  const double magnitude = std::fabs(x);
  const int exponent = std::max(std::ilogb(magnitude), f.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - f.precision_bits + 1);
  const double units = magnitude / quantum;  // in [2^(p−1), 2^p) for a normal number
  double below = std::floor(units);
  const double rest = units - below;
  const bool odd = static_cast<long long>(below) % 2 != 0;
  if (rest > 0.5 || (rest == 0.5 && odd)) below += 1.0;  // up; a tie goes to the even neighbour
  const double rounded = below * quantum;  // may be 2^(e+1): the carry into the next binade
  // Past the largest finite number (2^(e+1) with e = max_exponent) the result is infinite.
  return std::copysign(rounded > f.max_finite() ? HUGE_VAL : rounded, x);
}

// The same rounding on x's bits, the tuned path of round_in_place: a loop without branches
// that the compiler vectorizes (~50x faster than the reference). For a result in the format's
// normal range, the low 53 − p bits of the float64 significand are dropped: adding half of
// their weight (minus one, plus the lowest kept bit, so that a tie goes to the even neighbour)
// and clearing them rounds to nearest, and a carry runs into the exponent as it should. Below
// the smallest normal number the format's numbers are the multiples of the smallest subnormal
// q: |x|/q is rounded to an integer by adding and subtracting 1.5 · 2^52 (float64's own round
// to nearest even: exact while |x|/q < 2^51), times q. NaN, ±inf and ±0 are kept.
// tests/autograd/test_precision_rounding.cpp checks it on every fp16 and bf16 tie.
struct BitRounding {
  std::uint64_t drop_mask, half_minus_one, smallest_normal_bits, max_finite_bits;
  int dropped;
  double subnormal_quantum, per_subnormal_quantum;
  explicit BitRounding(const FloatFormat& f)
      : drop_mask((std::uint64_t{1} << (53 - f.precision_bits)) - 1),
        half_minus_one((std::uint64_t{1} << (52 - f.precision_bits)) - 1),
        smallest_normal_bits(bits_of(f.smallest_normal())),
        max_finite_bits(bits_of(f.max_finite())),
        dropped(53 - f.precision_bits),
        subnormal_quantum(f.smallest_subnormal()),
        per_subnormal_quantum(1.0 / f.smallest_subnormal()) {}
  static std::uint64_t bits_of(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  }
  void operator()(double* v, std::size_t n) const {
    constexpr double to_integer = 6755399441055744.0;  // 1.5 · 2^52
    constexpr std::uint64_t sign_bit = 0x8000000000000000ull, infinity = 0x7FF0000000000000ull;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t u;
      std::memcpy(&u, v + i, sizeof u);
      const std::uint64_t sign = u & sign_bit, magnitude = u ^ sign;
      std::uint64_t normal = (magnitude + half_minus_one + ((magnitude >> dropped) & 1)) & ~drop_mask;
      normal = normal > max_finite_bits ? infinity : normal;  // overflow: ±inf
      double x_magnitude;
      std::memcpy(&x_magnitude, &magnitude, sizeof x_magnitude);
      const double subnormal = ((x_magnitude * per_subnormal_quantum + to_integer) - to_integer) * subnormal_quantum;
      const std::uint64_t rounded =
          magnitude >= infinity ? magnitude : magnitude < smallest_normal_bits ? bits_of(subnormal) : normal;
      const std::uint64_t out = rounded | sign;
      std::memcpy(v + i, &out, sizeof out);
    }
  }
};

}  // namespace

double FloatFormat::max_finite() const {
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - precision_bits), max_exponent);
}
double FloatFormat::smallest_subnormal() const { return std::ldexp(1.0, min_exponent - precision_bits + 1); }
double FloatFormat::smallest_normal() const { return std::ldexp(1.0, min_exponent); }
double FloatFormat::epsilon() const { return std::ldexp(1.0, 1 - precision_bits); }

const FloatFormat& format_of(Precision precision) { return formats[static_cast<int>(precision)]; }

std::string to_string(Precision precision) { return format_of(precision).name; }

Precision parse_precision(const char* who, const std::string& name) {
  if (name == "fp64" || name == "float64") return Precision::fp64;
  if (name == "fp32" || name == "float32") return Precision::fp32;
  if (name == "bf16" || name == "bfloat16") return Precision::bf16;
  if (name == "fp16" || name == "float16") return Precision::fp16;
  throw Error(std::string(who) + ": precision must be fp64, fp32, bf16 or fp16 (or float64, float32, bfloat16, " +
              "float16), got '" + name + "'");
}

double round_to(double x, Precision precision) {
  if (precision == Precision::fp64) return x;
  return round_to_format(x, format_of(precision));
}

void round_in_place(Array& values, Precision precision) {
  if (precision == Precision::fp64) return;
  const FloatFormat& f = format_of(precision);
  if (kernels::use_fast_kernels) {
    const BitRounding round_bits(f);
    round_bits(values.data(), values.size());  // on the raw array: xtensor's iterator costs more than the rounding
  } else {
    for (double& v : values) v = round_to_format(v, f);
  }
}

Precision current_precision() { return scope_precision; }
bool low_precision_active() { return scope_precision != Precision::fp64; }

precision_scope::precision_scope(Precision precision) : previous_(scope_precision) { scope_precision = precision; }
precision_scope::~precision_scope() { scope_precision = previous_; }

void round_(Tensor& t, Precision precision) {
  if (!t.defined()) throw Error("round_: the tensor is undefined (default-constructed)");
  round_in_place(t.mutable_value(), precision);
}

void round_(std::vector<Tensor>& tensors, Precision precision) {
  for (Tensor& t : tensors) round_(t, precision);
}

void round_to_current_precision(Array& values) { round_in_place(values, scope_precision); }

void accumulate_grad_in_current_precision(const Tensor& t, const Array& g) {
  const Precision precision = scope_precision;
  Array contribution = sum_to_shape(g, t.shape());  // the op's gradient for t, as the op would store it
  round_in_place(contribution, precision);
  const bool adds = t.has_grad();
  {
    precision_scope exact(Precision::fp64);  // the add itself in float64 ...
    t.accumulate_grad(std::move(contribution));
  }
  if (adds) {
    Tensor handle = t;
    round_in_place(handle.mutable_grad(), precision);  // ... and its sum rounded once
  }
}

}  // namespace tapegrad
