// Exercise 10: one Adam step, called once per gradient from a zero state. Reference: the library's
// optim::Adam (PyTorch's arithmetic); catalogue: the step on plain loops with knobs.

#include <cmath>

#include "grader.hpp"
#include "tapegrad/optim/adam.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {param0, {lr, beta1, beta2, eps}, g1, g2, ...}; outputs {param, m, v, step} after the last step.
struct AdamKnobs {
  bool bias_correction = true, sqrt_v = true, eps_inside = false;
  int step_offset = 0;  // the bias correction's t is off by this
};

Outputs adam_by_loops(const Case& c, const AdamKnobs& k) {
  const double lr = c.in[1](0), b1 = c.in[1](1), b2 = c.in[1](2), eps = c.in[1](3);
  Array p = c.in[0], m = xt::zeros<double>(p.shape()), v = xt::zeros<double>(p.shape());
  long t = 0;
  for (std::size_t gi = 2; gi < c.in.size(); ++gi) {
    const Array& g = c.in[gi];
    ++t;
    const double tt = static_cast<double>(t + k.step_offset);
    const double bc1 = k.bias_correction ? 1 - std::pow(b1, tt) : 1, bc2 = k.bias_correction ? 1 - std::pow(b2, tt) : 1;
    for (std::size_t i = 0; i < p.size(); ++i) {
      m.data()[i] = b1 * m.data()[i] + (1 - b1) * g.data()[i];
      v.data()[i] = b2 * v.data()[i] + (1 - b2) * g.data()[i] * g.data()[i];
      const double mhat = m.data()[i] / bc1, vhat = v.data()[i] / bc2;
      const double denom = !k.sqrt_v ? vhat + eps : k.eps_inside ? std::sqrt(vhat + eps) : std::sqrt(vhat) + eps;
      p.data()[i] -= lr * mhat / denom;
    }
  }
  return {p, m, v, Array{static_cast<double>(t)}};
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
    Tensor p(c.in[0], true);
    optim::AdamOptions o;
    o.lr = c.in[1](0), o.betas = {c.in[1](1), c.in[1](2)}, o.eps = c.in[1](3), o.weight_decay = 0.0;
    optim::Adam adam({p}, o);
    for (std::size_t gi = 2; gi < c.in.size(); ++gi) {
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
  return s;
}

}  // namespace tapegrad::exercise::detail
