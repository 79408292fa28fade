// Anomaly mode: scan op outputs (forward) and input gradients (backward) for
// NaN/Inf and throw at the first op that makes one.
#include "tapegrad/debug/anomaly.hpp"

#include "tapegrad/autograd/hooks.hpp"

#include <cmath>
#include <algorithm>
#include <sstream>

#include <xtensor/xstrides.hpp>
#include <xtensor/xshape.hpp>

namespace tapegrad {

namespace {

// Where the NaN/Inf values of an array are.
struct BadValues {
  std::size_t nan = 0;
  std::size_t inf = 0;
  std::size_t first = 0;  // flat index of the first one (valid if count() > 0)
  std::size_t count() const { return nan + inf; }
};

BadValues scan(const Array& a) {
  BadValues bad;
  const double* p = a.data();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isfinite(p[i])) continue;
    if (bad.count() == 0) bad.first = i;
    (std::isnan(p[i]) ? bad.nan : bad.inf) += 1;
  }
  return bad;
}

// "1 NaN and 2 Inf values"
std::string describe(const BadValues& bad) {
  std::ostringstream out;
  if (bad.nan) out << bad.nan << " NaN";
  if (bad.nan && bad.inf) out << " and ";
  if (bad.inf) out << bad.inf << " Inf";
  out << (bad.count() == 1 ? " value" : " values");
  return out.str();
}

// A value as text; every NaN as "nan" (the sign of a NaN means nothing).
std::string number(double v) {
  if (std::isnan(v)) return "nan";
  std::ostringstream out;
  out << v;
  return out.str();
}

// The flat index as a multi-index "(1, 2)", as the user would write it.
std::string index_of(const Array& a, std::size_t flat) {
  if (a.dimension() == 0) return "()";
  return shape_str(xt::unravel_index(flat, a.shape()));
}

std::string position(long tape_index) {
  return tape_index < 0 ? "not recorded on the tape" : "tape entry " + std::to_string(tape_index);
}

// The usual suspects, so that the message says *why* as well as where.
const char* hint_for(const std::string& op) {
  if (op == "log") return "log(x) is NaN for x < 0 and -inf at x = 0";
  if (op == "sqrt") return "sqrt(x) is NaN for x < 0; its gradient 1/(2 sqrt(x)) is inf at x = 0";
  if (op == "div" || op == "rdiv_scalar") return "0/0 is NaN and x/0 is +-inf; its gradient -a/b^2 blows up as b -> 0";
  if (op == "pow") return "x^p is NaN for x < 0 and non-integer p, inf at x = 0 for p < 0";
  if (op == "exp") return "exp(x) overflows to inf for x > 709.78";
  if (op == "layer_norm" || op == "rms_norm" || op == "batch_norm")
    return "a NaN/Inf in the input, or a variance + eps that is 0 (eps = 0 on a constant row)";
  return nullptr;
}

// "'x' (3), (3)" and, for inputs that were already bad, a note that the
// trouble started upstream (e.g. in a leaf the user made).
std::string describe_inputs(const std::vector<Tensor>& inputs) {
  std::ostringstream out;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    out << "\n  input " << k << ": " << inputs[k].label();
    const TensorImpl& in = inputs[k].impl();
    if (!in.made_by.empty()) out << ", made by '" << in.made_by << "' (" << position(in.tape_index) << ")";
    const BadValues bad = scan(inputs[k].value());
    if (bad.count())
      out << " already holds " << describe(bad) << " (first at " << index_of(inputs[k].value(), bad.first)
          << "): they came from outside the tape, e.g. a leaf tensor you made";
  }
  return out.str();
}

// The value of `t` at a flat index of an array of the same shape, if it has that shape.
std::string value_at_if_same_shape(const Tensor& t, const Array& like, std::size_t flat) {
  const Array& v = t.value();
  if (!xt::same_shape(v.shape(), like.shape())) return "";
  return number(v.data()[flat]);
}

}  // namespace

// Anomaly mode is on while its checks are the engine's hook (this thread's, as grad mode is).
const AutogradHook anomaly_checks{check_forward_anomaly, run_backward_checked};

bool is_anomaly_enabled() { return autograd_hook() == &anomaly_checks; }
void set_detect_anomaly(bool enabled) {
  if (enabled) set_autograd_hook(&anomaly_checks);
  else if (is_anomaly_enabled()) set_autograd_hook(nullptr);
}

detect_anomaly::detect_anomaly(bool enabled) : previous_(is_anomaly_enabled()) { set_detect_anomaly(enabled); }
detect_anomaly::~detect_anomaly() { set_detect_anomaly(previous_); }

void check_forward_anomaly(const char* op, const std::vector<Tensor>& inputs, const Array& value, long tape_index) {
  const BadValues bad = scan(value);
  if (bad.count() == 0) return;
  std::ostringstream msg;
  msg << "anomaly in forward: '" << op << "' (" << position(tape_index) << ") produced " << describe(bad)
      << " in its output of shape " << shape_str(value.shape()) << "; the first at index "
      << index_of(value, bad.first) << " = " << number(value.data()[bad.first]) << '.';
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string v = value_at_if_same_shape(inputs[k], value, bad.first);
    if (!v.empty()) msg << " Input " << k << " there is " << v << '.';
  }
  msg << describe_inputs(inputs);
  if (const char* hint = hint_for(op)) msg << "\n  hint: " << hint;
  throw AnomalyError(msg.str(), op, tape_index, /*in_backward=*/false, /*input=*/-1, bad.first, bad.count());
}

void run_backward_checked(const TapeEntry& e, const Array& grad_output, std::size_t tape_index) {
  const long index = static_cast<long>(tape_index);
  // Every op above this one was checked, so a bad incoming gradient can only
  // be the seed given to backward().
  const BadValues bad_seed = scan(grad_output);
  if (bad_seed.count())
    throw AnomalyError("anomaly in backward: the gradient flowing into the output " + e.output.label() + " of '" +
                           e.op + "' (" + position(index) + ") already holds " + describe(bad_seed) +
                           "; it is the grad_output passed to backward()",
                       e.op, index, /*in_backward=*/true, /*input=*/-1, bad_seed.first, bad_seed.count());

  // Which inputs' gradients are finite now? Only a change from finite to
  // non-finite is this op's doing (a leaf may carry a NaN from an earlier pass).
  std::vector<bool> finite_before(e.inputs.size());
  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    const TensorImpl& in = e.inputs[k].impl();
    finite_before[k] = !in.has_grad || scan(in.grad).count() == 0;
  }

  e.backward(grad_output, e);

  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    const TensorImpl& in = e.inputs[k].impl();
    if (!finite_before[k] || !in.has_grad) continue;
    const BadValues bad = scan(in.grad);
    if (bad.count() == 0) continue;
    std::ostringstream msg;
    msg << "anomaly in backward: the backward of '" << e.op << "' (" << position(index)
        << ") produced a gradient with " << describe(bad) << " for input " << k << ' ' << e.inputs[k].label()
        << "; the first at index " << index_of(in.grad, bad.first) << " = " << number(in.grad.data()[bad.first])
        << " (input value there: " << number(in.value.data()[bad.first]) << ").\n  forward was: " << e.op << '(';
    for (std::size_t j = 0; j < e.inputs.size(); ++j) msg << (j ? ", " : "") << e.inputs[j].label();
    msg << ") -> " << e.output.label() << "; the incoming gradient was finite.";
    if (const char* hint = hint_for(e.op)) msg << "\n  hint: " << hint;
    throw AnomalyError(msg.str(), e.op, index, /*in_backward=*/true, static_cast<long>(k), bad.first, bad.count());
  }
}

}  // namespace tapegrad
