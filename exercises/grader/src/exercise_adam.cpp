// Exercise 10: one Adam step, called once per gradient from a zero state. Reference: the library's
// optim::Adam (PyTorch's arithmetic); catalogue: the step on plain loops with knobs.

#include <cmath>

#include "grader.hpp"
#include "tapegrad/optim/adam.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {param0, {lr, beta1, beta2, eps}, g1, g2, ...}; outputs {param, m, v, step} after the last step.
namespace input {
enum : std::size_t { param, hyper, first_grad };
}
double lr_of(const Case& c) { return c.in[input::hyper](0); }
double beta1_of(const Case& c) { return c.in[input::hyper](1); }
double beta2_of(const Case& c) { return c.in[input::hyper](2); }
double eps_of(const Case& c) { return c.in[input::hyper](3); }
struct AdamKnobs {
  bool bias_correction = true, sqrt_v = true, eps_inside = false;
  int step_offset = 0;         // the bias correction's t is off by this
  bool old_moments = false;    // the parameter updated with m and v before this step's update
  bool step_stored = true;     // false: t = step + 1 in a local, state.step never moves (t = 1 every call)
  bool abs_grad = false;       // v from |g| instead of g²
};

Outputs adam_by_loops(const Case& c, const AdamKnobs& k) {
  const double lr = lr_of(c), b1 = beta1_of(c), b2 = beta2_of(c), eps = eps_of(c);
  Array p = c.in[input::param], m = xt::zeros<double>(p.shape()), v = xt::zeros<double>(p.shape());
  long t = 0;
  for (std::size_t gi = input::first_grad; gi < c.in.size(); ++gi) {
    const Array& g = c.in[gi];
    ++t;
    const double tt = k.step_stored ? static_cast<double>(t + k.step_offset) : 1.0;
    const double bc1 = k.bias_correction ? 1 - std::pow(b1, tt) : 1, bc2 = k.bias_correction ? 1 - std::pow(b2, tt) : 1;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double m_old = m.data()[i], v_old = v.data()[i], gi_ = g.data()[i];
      m.data()[i] = b1 * m_old + (1 - b1) * gi_;
      v.data()[i] = b2 * v_old + (1 - b2) * (k.abs_grad ? std::abs(gi_) : gi_ * gi_);
      const double mhat = (k.old_moments ? m_old : m.data()[i]) / bc1, vhat = (k.old_moments ? v_old : v.data()[i]) / bc2;
      const double denom = !k.sqrt_v ? vhat + eps : k.eps_inside ? std::sqrt(vhat + eps) : std::sqrt(vhat) + eps;
      p.data()[i] -= lr * mhat / denom;
    }
  }
  return {p, m, v, Array{static_cast<double>(k.step_stored ? t : 0)}};
}

}  // namespace

Spec adam_step_spec() {
  Spec s;
  s.exercise = "adam_step";
  Draw d(10);
  struct Setup {
    Text name;
    Shape shape;
    int steps;
    double lr, b1, b2, eps, grad_scale;
  };
  const std::vector<Setup> setups = {
      {{"one step (5), PyTorch's defaults", "一步 (5)，PyTorch 默认值"}, {5}, 1, 1e-3, 0.9, 0.999, 1e-8, 1},
      {{"5 steps (3, 4), lr 0.01", "5 步 (3, 4)，lr 0.01"}, {3, 4}, 5, 1e-2, 0.9, 0.999, 1e-8, 1},
      {{"4 steps (2, 3), betas (0.5, 0.8), eps 0.1", "4 步 (2, 3)，betas (0.5, 0.8)，eps 0.1"}, {2, 3}, 4, 0.1, 0.5, 0.8, 0.1, 1},
      {{"3 steps (7), tiny gradients (1e-4)", "3 步 (7)，很小的梯度（1e-4）"}, {7}, 3, 1e-3, 0.9, 0.999, 1e-8, 1e-4},
  };
  for (const Setup& st : setups) {
    Case c;
    c.name = st.name;
    c.in = {d.normal(st.shape), Array{st.lr, st.b1, st.b2, st.eps}};
    for (int i = 0; i < st.steps; ++i) c.in.push_back(d.normal(st.shape, 0, st.grad_scale));
    c.fd = false;
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    Tensor p(c.in[input::param], true);
    optim::AdamOptions o;
    o.lr = lr_of(c), o.betas = {beta1_of(c), beta2_of(c)}, o.eps = eps_of(c), o.weight_decay = 0.0;
    optim::Adam adam({p}, o);
    for (std::size_t gi = input::first_grad; gi < c.in.size(); ++gi) {
      p.zero_grad();
      p.accumulate_grad(c.in[gi]);
      adam.step();
    }
    const optim::AdamParamState& st = adam.state(0);
    return Outputs{p.value(), st.exp_avg, st.exp_avg_sq, Array{static_cast<double>(st.step)}};
  };
  auto add = [&](const std::string& id, AdamKnobs k, Text hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return adam_by_loops(c, k); }, std::move(hint), false});
  };
  AdamKnobs k;
  k.bias_correction = false;
  add("bias_correction_missing", k,
      {"The bias corrections are missing: m and v start at 0, so early on they are too small by the factors "
       "(1 − β1^t) and (1 − β2^t). Divide by them: m̂ = m/(1 − β1^t), v̂ = v/(1 − β2^t).",
       "缺了偏差修正：m 和 v 从 0 开始，所以早期它们分别偏小 (1 − β1^t) 和 (1 − β2^t) 倍。除以它们："
       "m̂ = m/(1 − β1^t)，v̂ = v/(1 − β2^t)。"});
  k = {};
  k.eps_inside = true;
  add("eps_inside_sqrt", k,
      {"ε is under the square root: sqrt(v̂ + ε). Adam (and PyTorch) adds it outside: m̂ / (sqrt(v̂) + ε). With "
       "small gradients or a large ε the two differ a lot.",
       "ε 放在了根号里：sqrt(v̂ + ε)。Adam（以及 PyTorch）把它加在外面：m̂ / (sqrt(v̂) + ε)。梯度很小或 ε 较大时两者差别很大。"});
  k = {};
  k.sqrt_v = false;
  add("sqrt_missing", k,
      {"You divided by v̂ instead of sqrt(v̂). v is a running mean of g², so sqrt(v̂) has the units of g and the "
       "step m̂/sqrt(v̂) is about ±1 times lr.",
       "你除以的是 v̂ 而不是 sqrt(v̂)。v 是 g² 的滑动平均，所以 sqrt(v̂) 与 g 同量纲，步长 m̂/sqrt(v̂) 约为 lr 的 ±1 倍。"});
  k = {};
  k.step_offset = -1;
  add("step_off_by_one", k,
      {"The bias correction uses the step count before the increment: at the first step 1 − β^0 = 0 and the "
       "division gives NaN. Increment t first, then use t (1, 2, ...) in 1 − β^t.",
       "偏差修正用的是自增之前的步数：第一步时 1 − β^0 = 0，除法得到 NaN。先把 t 加一，再在 1 − β^t 里用 t（1, 2, ...）。"});
  k = {};
  k.old_moments = true;
  add("old_moments", k,
      {"The parameter was updated with the old m and v: update m and v with this step's gradient first, then "
       "p −= lr·m̂/(sqrt(v̂) + ε) with the new ones. With the old ones the first step does not move p at all "
       "(m = v = 0).",
       "参数用旧的 m 和 v 更新了：先用这一步的梯度更新 m 和 v，再用新的值 p −= lr·m̂/(sqrt(v̂) + ε)。"
       "用旧值的话，第一步 p 根本不动（m = v = 0）。"});
  k = {};
  k.step_stored = false;
  add("step_not_incremented", k,
      {"The step count is not kept: state.step stays 0, so every call corrects with t = 1 and the returned step is "
       "wrong. Store the new count in the returned state (s.step = state.step + 1) and use it in 1 − β^t.",
       "步数没有保存：state.step 一直是 0，所以每次都按 t = 1 做偏差修正，返回的 step 也不对。把新的步数存进返回的状态"
       "（s.step = state.step + 1），并在 1 − β^t 里用它。"});
  k = {};
  k.abs_grad = true;
  add("abs_instead_of_square", k,
      {"v is a running mean of |g|, not of g²: v = β2·v + (1 − β2)·g². sqrt(v̂) then has the units of g, and "
       "the step m̂/sqrt(v̂) is about ±1 times lr.",
       "v 是 |g| 的滑动平均，而应该是 g² 的：v = β2·v + (1 − β2)·g²。这样 sqrt(v̂) 才与 g 同量纲，步长 m̂/sqrt(v̂) 约为 lr 的 ±1 倍。"});
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_adam_step(AdamStep step, const Options& options) {
  return graded(adam_step_spec(),
                {{"adam_step", {"param", "m", "v", "step"},
                  [=](const Case& c) {
                    AdamState s;
                    s.param = c.in[input::param];
                    s.m = xt::zeros<double>(c.in[input::param].shape());
                    s.v = xt::zeros<double>(c.in[input::param].shape());
                    for (std::size_t gi = input::first_grad; gi < c.in.size(); ++gi)
                      s = step(s, c.in[gi], lr_of(c), beta1_of(c), beta2_of(c), eps_of(c));
                    return Outputs{s.param, s.m, s.v, Array{static_cast<double>(s.step)}};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
