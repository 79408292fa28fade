// A fuzz test of the API: random programs of ops from a fixed seed, on shapes with 0s
// and 1s that broadcast or do not, values with NaN, ±Inf and huge numbers, tensors used
// twice, then backward with and without retain_graph and a second backward.
// Every op call must either throw a tapegrad::Error naming the op or return a result of
// the shape the rules below give (written here independently of the library, from
// NumPy's and PyTorch's rules); where every value is finite and away from kinks and
// poles, the whole program's gradient is checked by finite differences (gradcheck).
//
// TAPEGRAD_FUZZ_PROGRAMS=N runs N programs instead of the default (a few seconds);
// TAPEGRAD_FUZZ_SEED=S starts from another seed. The counts are printed at the end.
#include "ops/op_common.hpp"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();
const double inf_value = std::numeric_limits<double>::infinity();

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Random choices through tapegrad::Generator: the same programs with every standard library.
struct Dice {
  Generator g;
  explicit Dice(std::uint64_t seed) : g(seed) {}
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(g.integer(n)); }
  bool chance(double p) { return g.uniform() < p; }
  long between(long lo, long hi) { return lo + static_cast<long>(below(static_cast<std::size_t>(hi - lo + 1))); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

// ---- the rules, written out here (not taken from the library) ----

// NumPy broadcasting: aligned from the right, each pair equal or one of them 1.
std::optional<Shape> broadcast_rule(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t da = i + a.size() < n ? 1 : a[i + a.size() - n];
    const std::size_t db = i + b.size() < n ? 1 : b[i + b.size() - n];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Axes in [-dim, dim), none repeated; an empty list means every axis (PyTorch 1.13).
std::optional<std::vector<bool>> reduced_axes_rule(const Shape& x, const Axes& axes) {
  const long n = static_cast<long>(x.size());
  std::vector<bool> reduced(x.size(), axes.empty());
  for (long a : axes) {
    if (a < -n || a >= n) return std::nullopt;
    const std::size_t i = static_cast<std::size_t>(a < 0 ? a + n : a);
    if (reduced[i]) return std::nullopt;
    reduced[i] = true;
  }
  return reduced;
}

std::size_t count(const Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s) n *= d;
  return n;
}

// ---- one step of a program ----

struct Step {
  std::string op;
  std::vector<std::size_t> args;  // indices into the program's list of tensors
  Axes axes;                      // reductions; normalized_shape of layer_norm (as longs)
  bool keepdims = false;
  long axis = 0, axis2 = 0;       // softmax, transpose
  double scalar = 0.0;            // scalar ops, pow
  std::vector<long> new_shape;    // reshape
  std::vector<std::int64_t> targets;  // cross_entropy
  bool under_no_grad = false;
};

// What the rules allow: a result of `shape`, or an error (shape unset).
struct Expected {
  std::optional<Shape> shape;
};

const std::vector<std::string> unary_ops = {"neg",  "exp",     "log",        "sqrt",       "relu",       "gelu",
                                            "gelu_tanh", "silu", "tanh", "sigmoid", "add_scalar", "mul_scalar", "rdiv_scalar",
                                            "pow"};
const std::vector<std::string> binary_ops = {"add", "sub", "mul", "div"};
const std::vector<std::string> other_ops = {"sum",       "sum_axes",  "mean",   "mean_axes",  "softmax",
                                            "log_softmax", "transpose", "transpose_dims", "reshape", "matmul",
                                            "mse_loss",  "cross_entropy", "linear", "layer_norm"};

// The API name an error message must start with.
std::string api_name(const std::string& op) {
  if (op == "sum_axes") return "sum";
  if (op == "mean_axes") return "mean";
  if (op == "transpose_dims") return "transpose";
  if (op == "gelu_tanh") return "gelu";
  return op;
}

Tensor run_step(const Step& s, const std::vector<Tensor>& t) {
  const Tensor& a = t[s.args[0]];
  auto b = [&]() -> const Tensor& { return t[s.args.at(1)]; };
  if (s.op == "neg") return neg(a);
  if (s.op == "exp") return exp(a);
  if (s.op == "log") return log(a);
  if (s.op == "sqrt") return sqrt(a);
  if (s.op == "relu") return relu(a);
  if (s.op == "gelu") return gelu(a);
  if (s.op == "gelu_tanh") return gelu(a, "tanh");
  if (s.op == "silu") return silu(a);
  if (s.op == "tanh") return tanh(a);
  if (s.op == "sigmoid") return sigmoid(a);
  if (s.op == "add_scalar") return add(a, s.scalar);
  if (s.op == "mul_scalar") return mul(a, s.scalar);
  if (s.op == "rdiv_scalar") return div(s.scalar, a);
  if (s.op == "pow") return pow(a, s.scalar);
  if (s.op == "add") return add(a, b());
  if (s.op == "sub") return sub(a, b());
  if (s.op == "mul") return mul(a, b());
  if (s.op == "div") return div(a, b());
  if (s.op == "sum") return sum(a);
  if (s.op == "mean") return mean(a);
  if (s.op == "sum_axes") return sum(a, s.axes, s.keepdims);
  if (s.op == "mean_axes") return mean(a, s.axes, s.keepdims);
  if (s.op == "softmax") return softmax(a, s.axis);
  if (s.op == "log_softmax") return log_softmax(a, s.axis);
  if (s.op == "transpose") return transpose(a);
  if (s.op == "transpose_dims") return transpose(a, s.axis, s.axis2);
  if (s.op == "reshape") return reshape(a, s.new_shape);
  if (s.op == "matmul") return matmul(a, b());
  if (s.op == "mse_loss") return mse_loss(a, b());
  if (s.op == "cross_entropy") return cross_entropy(a, s.targets);
  if (s.op == "linear") return linear(a, b(), s.args.size() > 2 ? t[s.args[2]] : Tensor{});
  if (s.op == "layer_norm") return layer_norm(a, Shape(s.axes.begin(), s.axes.end()));
  FAIL("fuzz: unknown op " << s.op);
  return {};
}

Expected expected(const Step& s, const std::vector<Tensor>& t) {
  const Shape x = t[s.args[0]].shape();
  auto y = [&] { return t[s.args.at(1)].shape(); };
  const auto one_of = [&s](const std::vector<std::string>& ops) {
    return std::find(ops.begin(), ops.end(), s.op) != ops.end();
  };
  if (one_of(unary_ops)) return {x};
  if (one_of(binary_ops)) return {broadcast_rule(x, y())};
  if (s.op == "sum") return {Shape{}};
  if (s.op == "mean") return {count(x) == 0 ? std::nullopt : std::optional<Shape>(Shape{})};  // refused: documented
  if (s.op == "sum_axes" || s.op == "mean_axes") {
    const auto reduced = reduced_axes_rule(x, s.axes);
    if (!reduced) return {};
    if (s.op == "mean_axes" && s.axes.empty() && count(x) == 0) return {};  // as mean(x)
    Shape out;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!(*reduced)[i]) out.push_back(x[i]);
      else if (s.keepdims) out.push_back(1);
    }
    return {out};
  }
  if (s.op == "softmax" || s.op == "log_softmax") {
    const long n = static_cast<long>(x.size());
    if (n == 0 || s.axis < -n || s.axis >= n) return {};
    return {x};
  }
  if (s.op == "transpose") {
    if (x.size() != 2) return {};
    return {Shape{x[1], x[0]}};
  }
  if (s.op == "transpose_dims") {
    const long n = static_cast<long>(x.size());
    if (s.axis < -n || s.axis >= n || s.axis2 < -n || s.axis2 >= n) return {};
    Shape out = x;
    std::swap(out[static_cast<std::size_t>(s.axis < 0 ? s.axis + n : s.axis)],
              out[static_cast<std::size_t>(s.axis2 < 0 ? s.axis2 + n : s.axis2)]);
    return {out};
  }
  if (s.op == "reshape") {
    // torch.reshape: at most one -1, no other negatives, the same element count; -1 must be
    // inferable (the other dimensions' product is not 0). Products are taken in long double
    // so that an overflowing shape is seen as the huge count it is.
    long double known = 1;
    int minus_ones = 0;
    for (long d : s.new_shape) {
      if (d == -1) ++minus_ones;
      else if (d < 0) return {};
      else known *= static_cast<long double>(d);
    }
    const long double have = static_cast<long double>(count(x));
    if (minus_ones > 1) return {};
    Shape out;
    for (long d : s.new_shape) out.push_back(d < 0 ? 0 : static_cast<std::size_t>(d));
    if (minus_ones == 1) {
      if (known == 0 || std::fmod(have, known) != 0) return {};
      for (std::size_t i = 0; i < out.size(); ++i)
        if (s.new_shape[i] == -1) out[i] = static_cast<std::size_t>(have / known);
      return {out};
    }
    if (known != have) return {};
    return {out};
  }
  if (s.op == "matmul") {
    const Shape w = y();
    if (x.size() < 2 || w.size() != 2 || x.back() != w[0]) return {};
    Shape out = x;
    out.back() = w[1];
    return {out};
  }
  if (s.op == "mse_loss") {
    if (x != y() || count(x) == 0) return {};
    return {Shape{}};
  }
  if (s.op == "cross_entropy") {
    if (x.size() != 2 || s.targets.size() != x[0] || x[0] == 0) return {};
    for (std::int64_t c : s.targets)
      if (c < 0 || c >= static_cast<std::int64_t>(x[1])) return {};
    return {Shape{}};
  }
  if (s.op == "linear") {
    const Shape w = y();
    if (w.size() != 2 || x.empty() || x.back() != w[1]) return {};
    if (s.args.size() > 2 && t[s.args[2]].shape() != Shape{w[0]}) return {};
    Shape out = x;
    out.back() = w[0];
    return {out};
  }
  if (s.op == "layer_norm") {
    const Shape normalized(s.axes.begin(), s.axes.end());
    if (normalized.empty() || normalized.size() > x.size() || count(normalized) == 0) return {};
    if (!std::equal(normalized.begin(), normalized.end(), x.end() - static_cast<long>(normalized.size()))) return {};
    return {x};
  }
  FAIL("fuzz: no rule for op " << s.op);
  return {};
}

// ---- where finite differences are trustworthy ----

bool all_within(const Array& v, double bound) {
  for (double e : v)
    if (!(std::abs(e) <= bound)) return false;  // NaN fails too
  return true;
}

// (Loops, not xt::all: xtensor 0.24's all() offsets a null pointer on an empty array.)
bool all_above(const Array& v, double bound) {
  for (double e : v)
    if (!(e > bound)) return false;
  return true;
}

bool all_away_from_zero(const Array& v, double margin) {
  for (double e : v)
    if (!(std::abs(e) >= margin)) return false;
  return true;
}

// Whether the step is smooth around its inputs' values: no kink (relu at 0), no pole
// (division by ~0), no edge of the domain (log, sqrt, fractional pow at ~0 or below).
bool smooth_at(const Step& s, const std::vector<Tensor>& t) {
  const Array& a = t[s.args[0]].value();
  if (!std::isfinite(s.scalar)) return false;
  if (s.op == "relu") return all_away_from_zero(a, 1e-3);
  if (s.op == "log" || s.op == "sqrt") return all_above(a, 0.1);
  if (s.op == "pow") {
    const bool whole = s.scalar == std::floor(s.scalar);
    if (whole && s.scalar >= 0) return true;
    return whole ? all_away_from_zero(a, 0.1) : all_above(a, 0.1);
  }
  if (s.op == "rdiv_scalar") return all_away_from_zero(a, 0.1);
  if (s.op == "div") return all_away_from_zero(t[s.args[1]].value(), 0.1);
  if (s.op == "layer_norm") return false;  // near-constant rows: checked by its own gradchecks
  return true;
}

// ---- making programs ----

struct Stats {
  std::size_t programs = 0, calls = 0, refused = 0, nonfinite_calls = 0, empty_calls = 0;
  std::size_t backwards = 0, backward_refused = 0, second_backwards = 0, gradchecks = 0, gradchecked_elements = 0;
};

// A shape near `base`: base itself, base with some dimensions 1, a suffix of it, or random.
Shape shape_near(const Shape& base, Dice& dice) {
  Shape s = base;
  switch (dice.below(5)) {
    case 0: break;
    case 1:
      for (std::size_t& d : s)
        if (dice.chance(0.4)) d = 1;
      break;
    case 2: s.erase(s.begin(), s.begin() + static_cast<long>(dice.below(s.size() + 1))); break;
    case 3: std::reverse(s.begin(), s.end()); break;
    default:
      s.assign(dice.below(4), 0);
      for (std::size_t& d : s) d = dice.below(4);
  }
  return s;
}

double special_value(Dice& dice) {
  const std::vector<double> specials{nan_value, inf_value, -inf_value, 0.0, -0.0, 1e300, -1e300, 1e-300, 710.0};
  return dice.pick(specials);
}

Tensor make_leaf(const Shape& shape, bool special, Dice& dice, std::size_t index) {
  Array v = Array::from_shape(shape);
  const double scale = dice.pick(std::vector<double>{0.5, 1.0, 2.0});
  // Some leaves hold multiples of 0.5: exact zeros and ties, where kinks and 0^p live.
  const bool rounded = dice.chance(0.25);
  for (double& e : v) {
    e = special && dice.chance(0.3) ? special_value(dice) : dice.g.normal(0.0, scale);
    if (rounded) e = std::round(2.0 * e) / 2.0;
  }
  return Tensor(std::move(v), dice.chance(0.8), "leaf" + std::to_string(index));
}

Step make_step(const std::vector<Tensor>& t, Dice& dice) {
  Step s;
  const std::size_t kind = dice.below(10);
  s.op = kind < 4 ? dice.pick(unary_ops) : kind < 7 ? dice.pick(binary_ops) : dice.pick(other_ops);
  const bool two = std::find(binary_ops.begin(), binary_ops.end(), s.op) != binary_ops.end() || s.op == "matmul" ||
                   s.op == "mse_loss" || s.op == "linear";
  s.args.push_back(dice.below(t.size()));
  if (two) s.args.push_back(dice.below(t.size()));  // may be the same tensor twice
  if (s.op == "linear" && dice.chance(0.5)) s.args.push_back(dice.below(t.size()));
  const Shape x = t[s.args[0]].shape();
  const long n = static_cast<long>(x.size());
  s.scalar = dice.pick(std::vector<double>{0.0, 1.0, 2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 1e-3, nan_value, inf_value});
  s.keepdims = dice.chance(0.5);
  s.axis = dice.between(-n - 1, n);
  s.axis2 = dice.between(-n - 1, n);
  for (std::size_t k = dice.below(4); k > 0; --k) s.axes.push_back(dice.between(-n - 1, n));
  if (s.op == "layer_norm") {  // mostly a true suffix of x's shape
    s.axes.clear();
    const std::size_t len = dice.below(x.size() + 1);
    for (std::size_t i = x.size() - len; i < x.size(); ++i) s.axes.push_back(static_cast<long>(x[i]));
    if (dice.chance(0.2)) s.axes.push_back(static_cast<long>(dice.below(3)));
  }
  if (s.op == "reshape") {
    const std::size_t total = count(x);
    switch (dice.below(5)) {
      case 0: s.new_shape = {-1}; break;
      case 1: s.new_shape = {static_cast<long>(total)}; break;
      case 2: s.new_shape = {-1, 1}; break;
      case 3: s.new_shape = {1L << 32, 1L << 32}; break;
      default:
        for (std::size_t k = dice.below(4); k > 0; --k) s.new_shape.push_back(dice.between(-2, 4));
    }
    if (dice.chance(0.3)) std::reverse(s.new_shape.begin(), s.new_shape.end());
  }
  if (s.op == "cross_entropy") {
    const std::size_t rows = x.size() == 2 && !dice.chance(0.1) ? x[0] : dice.below(4);
    const long classes = x.size() == 2 ? static_cast<long>(x[1]) : 3;
    for (std::size_t i = 0; i < rows; ++i) {  // mostly in [0, classes), sometimes -1 or classes
      const long lo = dice.chance(0.1) ? -1 : 0;
      const long hi = std::max(lo, classes - (dice.chance(0.1) ? 0 : 1));
      s.targets.push_back(dice.between(lo, hi));
    }
  }
  s.under_no_grad = dice.chance(0.05);
  return s;
}

bool any_nonfinite(const std::vector<Tensor>& t, const Step& s) {
  for (std::size_t i : s.args)
    for (double e : t[i].value())
      if (!std::isfinite(e)) return true;
  return false;
}

bool any_empty(const std::vector<Tensor>& t, const Step& s) {
  for (std::size_t i : s.args)
    if (t[i].numel() == 0) return true;
  return false;
}

// Both arrays equal element by element, NaN matching NaN: a replayed pass gives the same bits.
bool same_bits(const Array& a, const Array& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
  }
  return true;
}

void run_program(std::uint64_t seed, Stats& stats) {
  Dice dice(seed);
  INFO("program seed " << seed << " (rerun: TAPEGRAD_FUZZ_SEED=" << seed << " TAPEGRAD_FUZZ_PROGRAMS=1)");
  tape().clear();
  ++stats.programs;

  // Leaves around a base shape of up to 3 dimensions of 0..3.
  Shape base(dice.below(4));
  for (std::size_t& d : base) d = dice.below(4);
  const bool special = dice.chance(0.3);
  const std::size_t n_leaves = 1 + dice.below(3);
  std::vector<Tensor> t;
  for (std::size_t i = 0; i < n_leaves; ++i) t.push_back(make_leaf(shape_near(base, dice), special, dice, i));
  std::vector<Tensor> leaves = t;

  // The steps; those refused are not replayed.
  std::vector<Step> kept;
  bool smooth = true;
  const std::size_t n_steps = 1 + dice.below(6);
  for (std::size_t k = 0; k < n_steps; ++k) {
    const Step s = make_step(t, dice);
    const Expected want = expected(s, t);
    std::string described = s.op + "(";
    for (std::size_t i : s.args) described += t[i].label() + " ";
    described += ")";
    INFO("step " << k << ": " << described);
    ++stats.calls;
    if (any_nonfinite(t, s)) ++stats.nonfinite_calls;
    if (any_empty(t, s)) ++stats.empty_calls;
    bool inputs_require_grad = false;
    for (std::size_t i : s.args) inputs_require_grad = inputs_require_grad || t[i].requires_grad();
    Tensor y;
    try {
      std::optional<no_grad> guard;
      if (s.under_no_grad) guard.emplace();
      y = run_step(s, t);
    } catch (const Error& e) {
      ++stats.refused;
      INFO("error: " << e.what());
      CHECK_FALSE(want.shape);  // refused although the rules give a result
      CHECK_THAT(std::string(e.what()), Catch::StartsWith(api_name(s.op) + ":"));
      continue;
    }
    // No other exception may escape (Catch2 fails the test on one).
    INFO("result " << y.label());
    REQUIRE(want.shape);  // the rules say this must be refused
    CHECK(y.shape() == *want.shape);
    CHECK(y.requires_grad() == (inputs_require_grad && !s.under_no_grad));
    smooth = smooth && !s.under_no_grad && smooth_at(s, t) && all_within(y.value(), 100.0);
    t.push_back(y);
    kept.push_back(s);
  }

  // Backward from a result that requires grad.
  std::vector<std::size_t> roots;
  for (std::size_t i = n_leaves; i < t.size(); ++i)
    if (t[i].requires_grad()) roots.push_back(i);
  if (roots.empty()) return;
  const Tensor root = t[dice.pick(roots)];
  INFO("backward from " << root.label());
  const bool retain = dice.chance(0.5);
  Array seed_grad = randn(root.shape(), seed);
  if (special && seed_grad.size() > 0 && dice.chance(0.3)) seed_grad.data()[0] = special_value(dice);
  ++stats.backwards;
  if (dice.chance(0.1)) {  // a seed of the wrong shape is refused, and the graph stays usable
    Shape wrong = root.shape();
    wrong.push_back(2);
    ++stats.backward_refused;
    CHECK_THROWS_AS(root.backward(Array(xt::zeros<double>(wrong)), true), ShapeError);
  }
  root.backward(seed_grad, retain);
  std::vector<std::optional<Array>> first;  // each leaf's gradient, if it got one
  for (const Tensor& leaf : leaves) {
    INFO("leaf " << leaf.label());
    if (!leaf.requires_grad()) CHECK_FALSE(leaf.has_grad());
    if (leaf.has_grad()) CHECK(leaf.grad().shape() == leaf.shape());
    first.push_back(leaf.has_grad() ? std::optional<Array>(leaf.grad()) : std::nullopt);
  }

  // A second backward: the same gradients bitwise if the graph was retained, else refused.
  ++stats.second_backwards;
  for (Tensor leaf : leaves) leaf.zero_grad();
  if (retain) {
    root.backward(seed_grad);
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      INFO("leaf " << leaves[i].label() << " after the second backward");
      CHECK(leaves[i].has_grad() == first[i].has_value());
      if (leaves[i].has_grad() && first[i]) CHECK(same_bits(leaves[i].grad(), *first[i]));
    }
  } else {
    ++stats.backward_refused;
    CHECK_THROWS_AS(root.backward(seed_grad), AutogradError);
  }
  for (Tensor leaf : leaves) leaf.zero_grad();

  // gradcheck where finite differences can be trusted: small finite values, no kinks or poles.
  bool small = true;
  for (const Tensor& leaf : leaves) small = small && leaf.numel() > 0 && all_within(leaf.value(), 3.0);
  if (!smooth || !small || root.numel() == 0) return;
  const std::size_t root_index = [&] {
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i].same(root)) return i;
    return t.size();
  }();
  const GradcheckFn replay = [&kept, root_index](const std::vector<Tensor>& in) {
    std::vector<Tensor> r = in;
    for (const Step& s : kept) r.push_back(run_step(s, r));
    return r.at(root_index);
  };
  ++stats.gradchecks;
  const GradcheckResult check = gradcheck(replay, leaves);
  stats.gradchecked_elements += check.checked;
  INFO(check.report);
  CHECK(check.ok);
  tape().clear();
}

}  // namespace

TEST_CASE("fuzz: random programs of ops give a tapegrad error or a result of the right shape", "[fuzz]") {
  const std::uint64_t programs = env_or("TAPEGRAD_FUZZ_PROGRAMS", 3000);
  const std::uint64_t first_seed = env_or("TAPEGRAD_FUZZ_SEED", 16);
  Stats stats;
  for (std::uint64_t p = 0; p < programs; ++p) run_program(first_seed + p, stats);
  tape().clear();
  std::cout << "fuzz: " << stats.programs << " programs, " << stats.calls << " op calls (" << stats.refused
            << " refused with a tapegrad error, " << stats.nonfinite_calls << " with NaN/Inf inputs, "
            << stats.empty_calls << " with empty inputs), " << stats.backwards << " backward passes ("
            << stats.backward_refused << " misuses refused), " << stats.gradchecks << " gradchecks over "
            << stats.gradchecked_elements << " elements\n";
  CHECK(stats.refused > 0);
  CHECK(stats.gradchecks > 0);
}
