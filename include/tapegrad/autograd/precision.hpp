#pragma once
// Low-precision emulation: run tapegrad's float64 code as if it stored float32, bfloat16 or
// float16 (docs/precision.md has the model and what it means for results).
//
//   {
//     tapegrad::precision_scope fp16(tapegrad::Precision::fp16);
//     Tensor y = model(x);   // every op's output rounded to fp16
//     loss.backward();       // every stored gradient rounded to fp16
//     optimizer.step();      // parameters and the optimizer's state rounded to fp16
//   }
//
// Values stay xt::xarray<double>; only their contents are restricted to what the format can
// hold. Each op computes in float64 and rounds its result once, to nearest, ties to even:
// a correctly rounded op. The one place outputs are rounded is record() (tape.cpp), the one
// place gradients are stored is Tensor::accumulate_grad (tensor.cpp). Each tape entry keeps the
// precision it was recorded in, and backward() runs its backward in it (as autocast does).

#include <string>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// fp64 is no rounding at all: the library's normal mode.
enum class Precision { fp64, fp32, bf16, fp16 };

// An IEEE-754 binary format as far as rounding needs it.
struct FloatFormat {
  const char* name;      // "fp16"
  int precision_bits;    // p: significand bits, the implicit leading one included (fp16 11, bf16 8)
  int min_exponent;      // the smallest normal number is 2^min_exponent (fp16 −14, bf16 and fp32 −126)
  int max_exponent;      // the largest finite number is (2 − 2^(1−p)) · 2^max_exponent (fp16: 65504)
  double max_finite() const;
  double smallest_subnormal() const;  // 2^(min_exponent − p + 1): fp16 2^−24
  double smallest_normal() const;     // 2^min_exponent
  double epsilon() const;             // 2^(1 − p): the gap between 1 and the next number
};

const FloatFormat& format_of(Precision precision);
// "fp64", "fp32", "bf16", "fp16".
std::string to_string(Precision precision);
// Accepts those names and float64/float32/bfloat16/float16; throws Error naming `who` otherwise.
Precision parse_precision(const char* who, const std::string& name);

// x rounded to the format: to nearest, ties to even; above the largest finite number by half
// a unit in the last place or more it is ±inf (fp16: |x| >= 65520); below the smallest normal
// it keeps the subnormals' fixed spacing (no flush to zero); NaN stays NaN, the sign of zero
// and of a result rounded to zero is kept. Directly from float64, with a single rounding.
double round_to(double x, Precision precision);
void round_in_place(Array& values, Precision precision);

// ---- the scope (thread-local, like no_grad) ----
// The precision ops round to on this thread: fp64 outside any precision_scope.
Precision current_precision();
// Whether a scope other than fp64 is active: the one test the float64 path pays for.
bool low_precision_active();

// RAII guard: ops, gradients and optimizer steps round to `precision` while it lives (an op's
// gradients: to the precision it was recorded in, wherever backward() is called).
// Scopes nest; precision_scope(Precision::fp64) turns rounding off inside another scope.
// Tensors made before the scope (data, parameters) are not changed by it: round them with
// round_(), as a model is cast with .half() in PyTorch.
class precision_scope {
 public:
  explicit precision_scope(Precision precision);
  ~precision_scope();
  precision_scope(const precision_scope&) = delete;
  precision_scope& operator=(const precision_scope&) = delete;

 private:
  Precision previous_;
};

// Rounds t's value in place to `precision` (PyTorch's t.data = t.to(dtype)); bumps its version.
void round_(Tensor& t, Precision precision);
void round_(std::vector<Tensor>& tensors, Precision precision);

// ---- the hooks (called by the library, each a no-op without a scope) ----
// record(): an op's output, in the current precision.
void round_to_current_precision(Array& values);
// Tensor::accumulate_grad under a scope: the op's contribution g (summed to t's shape) is
// rounded, added to t's gradient in float64, and the sum rounded: what a low-precision
// `grad += g` stores.
void accumulate_grad_in_current_precision(const Tensor& t, const Array& g);

}  // namespace tapegrad
