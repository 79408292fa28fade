#include "tapegrad/debug/gradcheck.hpp"

#include <cmath>
#include <random>
#include <sstream>

#include <xtensor/xreducer.hpp>

#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/reduce.hpp"

namespace tapegrad {

namespace {

// L = Σ w ⊙ y, evaluated on plain arrays (no tape).
double projected(const Array& y, const Array& w) { return xt::sum(y * w)(); }

// Finite differences need float64: inside a precision_scope every output is rounded with a
// relative error up to u = 2^−p (fp16 4.9e-4), and the difference quotient turns that into an
// error of about u·|L|/eps in the numeric gradient (fp16, eps 1e-6: ~490·|L|), far beyond any
// tolerance. PyTorch warns for inputs that are not float64; tapegrad refuses, with the reason.
void refuse_low_precision(const GradcheckOptions& options) {
  if (!low_precision_active()) return;
  const FloatFormat& f = format_of(current_precision());
  const double u = f.epsilon() / 2;
  std::ostringstream out;
  out.precision(2);
  out << "gradcheck: refusing to run inside a precision_scope(" << f.name << "): finite differences need float64. "
      << "In " << f.name << " every op's output is rounded with a relative error up to " << u
      << ", and (L(x+eps) - L(x-eps)) / (2 eps) with eps = " << options.eps
      << " turns that into an error of about " << u / options.eps
      << " times |L| in the numeric gradient, so the check would fail (or pass) by chance. "
      << "Run gradcheck outside the scope (as PyTorch warns for inputs that are not float64); to test an op "
      << "in low precision, compare its rounded output with round_to(float64 result)";
  throw Error(out.str());
}

// Helper 1, the analytic side: checks the inputs (leaves, or not requiring grad), resets their
// gradients and runs backward() through L = Σ w ⊙ fn(in) with fixed pseudo-random w (signs and
// sizes mixed, so no error can cancel out in a plain sum). Returns w; the gradients are in `in`.
Array analytic_gradients(const GradcheckFn& fn, std::vector<Tensor>& in, std::uint64_t seed) {
  for (Tensor& t : in) {
    if (!t.defined()) throw Error("gradcheck: an input tensor is undefined");
    if (t.requires_grad() && !t.is_leaf())
      throw Error("gradcheck: input " + t.label() + " is not a leaf; pass leaf tensors (use detach())");
    t.zero_grad();
  }
  enable_grad recording;
  Tensor y0 = fn(in);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.5, 1.5);
  Array w = Array::from_shape(y0.shape());
  for (double& v : w) v = uniform(rng) * (rng() % 2 ? 1.0 : -1.0);
  if (y0.requires_grad()) {
    Tensor L = sum(mul(y0, Tensor(w)));
    L.backward();
  }
  return w;
}

// (L(x + eps) − L(x − eps)) / (2 eps) for element j of t, without recording; t is restored exactly.
double numeric_derivative(const GradcheckFn& fn, const std::vector<Tensor>& in, Tensor& t, std::size_t j,
                          const Array& w, double eps) {
  no_grad guard;
  const double original = t.value().data()[j];
  t.mutable_value().data()[j] = original + eps;
  const double f_plus = projected(fn(in).value(), w);
  t.mutable_value().data()[j] = original - eps;
  const double f_minus = projected(fn(in).value(), w);
  t.mutable_value().data()[j] = original;
  return (f_plus - f_minus) / (2.0 * eps);
}

// Helper 2, the comparison: every element of every input that requires grad, its analytic
// gradient against the numeric one; the result holds the count and the worst element.
GradcheckResult compare_with_finite_differences(const GradcheckFn& fn, std::vector<Tensor>& in, const Array& w,
                                                const GradcheckOptions& options) {
  GradcheckResult r;
  r.excess = -INFINITY;
  for (std::size_t i = 0; i < in.size(); ++i) {
    Tensor& t = in[i];
    if (!t.requires_grad()) continue;
    const Array analytic = t.has_grad() ? t.grad() : Array(xt::zeros<double>(t.shape()));
    const Shape shape = t.shape();
    for (std::size_t j = 0; j < t.numel(); ++j) {
      const double numeric = numeric_derivative(fn, in, t, j, w, options.eps);
      const double a = analytic.data()[j];
      double excess = std::abs(a - numeric) - (options.atol + options.rtol * std::abs(numeric));
      if (!std::isfinite(a) || !std::isfinite(numeric)) excess = INFINITY;
      ++r.checked;
      if (excess > r.excess) {
        r.excess = excess;
        r.input = i;
        r.input_label = t.label();
        r.index = index_str(shape, j);
        r.analytic = a;
        r.numeric = numeric;
      }
    }
  }
  return r;
}

// Helper 3, the verdict: ok, and the one readable paragraph.
void write_report(GradcheckResult& r, const GradcheckOptions& options) {
  std::ostringstream out;
  out.precision(10);
  if (r.checked == 0) {
    r.ok = false;
    out << "gradcheck: nothing to check: no input requires grad";
  } else {
    r.ok = r.excess <= 0.0;
    out << "gradcheck " << (r.ok ? "passed" : "FAILED") << ": " << r.checked << " elements checked; worst: input "
        << r.input << " " << r.input_label << " at " << r.index << ": analytic " << r.analytic << ", numeric "
        << r.numeric << " (|diff| " << std::abs(r.analytic - r.numeric) << ", tolerance "
        << options.atol + options.rtol * std::abs(r.numeric) << ")";
  }
  r.report = out.str();
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  refuse_low_precision(options);
  std::vector<Tensor> in = inputs;  // handles: same data as the caller's
  const Array w = analytic_gradients(fn, in, options.seed);
  GradcheckResult r = compare_with_finite_differences(fn, in, w, options);
  for (Tensor& t : in) t.zero_grad();
  write_report(r, options);
  return r;
}

}  // namespace tapegrad
