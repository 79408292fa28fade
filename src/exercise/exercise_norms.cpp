// Exercises 2 to 5: LayerNorm forward, LayerNorm backward, RMSNorm, BatchNorm (features last).
// The reference is the library's op (its value and its autograd gradients); the catalogue is one
// normalisation on plain loops with a knob per known mistake (NormKnobs), run on the same inputs.

#include <cmath>
#include <map>

#include "grader.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad::exercise::detail {

namespace {

// ---- the cases: the seeds' worked examples, random shapes of rank 1-3 with odd sizes and γ, β not
// 1 and 0, 5·randn + 12, a large mean, constant rows, N = 1; always a non-uniform upstream gradient.
// in = {x, gamma, beta, dy}.
Case norm_case(Text name, Array x, Draw& draw, double eps = 1e-5, bool fd = true, bool affine = true) {
  const std::size_t n = last_dim(x);
  Array gamma = affine ? draw.uniform({n}, 0.5, 1.5) : Array(xt::ones<double>({n}));
  Array beta = affine ? draw.normal({n}, 0.0, 0.5) : Array(xt::zeros<double>({n}));
  Array dy = draw.normal(Shape(x.shape().begin(), x.shape().end()));
  Case c;
  c.name = std::move(name);
  c.in = {std::move(x), std::move(gamma), std::move(beta), std::move(dy)};
  c.eps = eps;
  c.fd = fd;
  return c;
}

// Statistics over the last axis (LayerNorm, RMSNorm).
std::vector<Case> row_cases() {
  Draw d(26);
  std::vector<Case> cases;
  cases.push_back(norm_case({"seed x = [3, 4, 5]", "种子例子 x = [3, 4, 5]"}, Array{3.0, 4.0, 5.0}, d, 1e-5, true, false));
  cases.push_back(norm_case({"seed x = [3, 3.001, 3.002] (spread ~ eps)", "种子例子 x = [3, 3.001, 3.002]（方差与 eps 同量级）"},
                            Array{3.0, 3.001, 3.002}, d, 1e-5, true, false));
  cases.push_back(norm_case({"random (7), 5·randn + 12", "随机 (7)，5·randn + 12"}, d.normal({7}, 12, 5), d));
  cases.push_back(norm_case({"random (3, 5), 5·randn + 12", "随机 (3, 5)，5·randn + 12"}, d.normal({3, 5}, 12, 5), d));
  cases.push_back(norm_case({"random (2, 3, 5), eps = 0.1", "随机 (2, 3, 5)，eps = 0.1"}, d.normal({2, 3, 5}), d, 0.1));
  cases.push_back(norm_case({"large mean (4, 6), 1e6 + randn", "大均值 (4, 6)，1e6 + randn"}, d.normal({4, 6}, 1e6, 1), d,
                            1e-5, false));
  Array constant = d.normal({3, 4}, 12, 5);
  for (std::size_t j = 0; j < 4; ++j) constant(0, j) = 7.0, constant(2, j) = -2.0;
  cases.push_back(norm_case({"constant rows (3, 4)", "常数行 (3, 4)"}, constant, d));
  cases.push_back(norm_case({"N = 1 (5, 1)", "N = 1 (5, 1)"}, d.normal({5, 1}, 12, 5), d));
  return cases;
}

Array column(Array a) {
  a.reshape({a.size(), 1});
  return a;
}

// Statistics over every axis but the last (BatchNorm, features last).
std::vector<Case> column_cases() {
  Draw d(27);
  std::vector<Case> cases;
  cases.push_back(norm_case({"seed x = [3, 4, 5] as a batch of 3, C = 1", "种子例子 x = [3, 4, 5]，批大小 3，C = 1"},
                            column(Array{3.0, 4.0, 5.0}), d, 1e-5, true, false));
  cases.push_back(norm_case({"random (7, 3), 5·randn + 12", "随机 (7, 3)，5·randn + 12"}, d.normal({7, 3}, 12, 5), d));
  cases.push_back(norm_case({"random (2, 3, 5)", "随机 (2, 3, 5)"}, d.normal({2, 3, 5}, 12, 5), d));
  cases.push_back(norm_case({"random (5, 4), eps = 0.1", "随机 (5, 4)，eps = 0.1"}, d.normal({5, 4}), d, 0.1));
  cases.push_back(norm_case({"large mean (6, 4), 1e6 + randn", "大均值 (6, 4)，1e6 + randn"}, d.normal({6, 4}, 1e6, 1), d,
                            1e-5, false));
  Array constant = d.normal({4, 3}, 12, 5);
  for (std::size_t i = 0; i < 4; ++i) constant(i, 1) = 7.0;
  cases.push_back(norm_case({"a constant feature (4, 3)", "常数特征列 (4, 3)"}, constant, d));
  cases.push_back(norm_case({"C = 1 (6, 1)", "C = 1 (6, 1)"}, d.normal({6, 1}, 12, 5), d));
  return cases;
}

// ---- the catalogue: one normalisation, every known mistake a knob ----
enum class Over { rows, columns, everything };  // LayerNorm's group, BatchNorm's, the whole tensor
enum class EpsAt { inside, outside, missing };  // sqrt(var + eps), sqrt(var) + eps, sqrt(var)
enum class Scale { sigma, sigma_squared, times_sigma };

struct NormKnobs {
  bool center = true;  // false: RMSNorm
  Over over = Over::rows;
  int ddof = 0;
  bool ddof_in_derivative = false;  // unbiased variance differentiated consistently
  EpsAt eps_at = EpsAt::inside;
  bool one_pass = false;  // E[x²] − E[x]²
  bool use_gamma = true, use_beta = true, swap_gamma_beta = false;
  // backward
  bool mean_term = true, projection_term = true, gamma_in_dx = true;
  bool sum_dgamma = true, sum_dbeta = true, dgamma_uses_x = false;
  Scale scale = Scale::sigma;
};

// Per element: its group; per group: mean and σ (the denominator); x̂.
struct Stats {
  std::vector<std::size_t> group;
  std::vector<double> mean, sigma, count;
  Array xhat;
};

Stats stats(const Array& x, double eps, const NormKnobs& k) {
  const std::size_t C = last_dim(x), R = rows_of(x);
  Stats s;
  const std::size_t groups = k.over == Over::rows ? R : k.over == Over::columns ? C : 1;
  s.group.resize(x.size());
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c)
      s.group[r * C + c] = k.over == Over::rows ? r : k.over == Over::columns ? c : 0;
  s.mean.assign(groups, 0.0), s.sigma.assign(groups, 0.0), s.count.assign(groups, 0.0);
  std::vector<double> sq(groups, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) s.count[s.group[i]] += 1, s.mean[s.group[i]] += x.data()[i],
                                               sq[s.group[i]] += x.data()[i] * x.data()[i];
  for (std::size_t g = 0; g < groups; ++g) s.mean[g] = k.center ? s.mean[g] / s.count[g] : 0.0;
  std::vector<double> var(groups, 0.0);
  if (k.one_pass) {
    for (std::size_t g = 0; g < groups; ++g) var[g] = sq[g] / s.count[g] - s.mean[g] * s.mean[g];
  } else {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = x.data()[i] - s.mean[s.group[i]];
      var[s.group[i]] += d * d;
    }
    for (std::size_t g = 0; g < groups; ++g) var[g] /= k.center ? s.count[g] : s.count[g];
  }
  for (std::size_t g = 0; g < groups; ++g) {
    if (k.ddof) var[g] *= s.count[g] / (s.count[g] - k.ddof);
    s.sigma[g] = k.eps_at == EpsAt::inside ? std::sqrt(var[g] + eps)
               : k.eps_at == EpsAt::outside ? std::sqrt(var[g]) + eps : std::sqrt(var[g]);
  }
  s.xhat = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) s.xhat.data()[i] = (x.data()[i] - s.mean[s.group[i]]) / s.sigma[s.group[i]];
  return s;
}

Array norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps, const NormKnobs& k) {
  const Stats s = stats(x, eps, k);
  const std::size_t C = last_dim(x);
  Array y = s.xhat;
  for (std::size_t i = 0; i < y.size(); ++i) {
    double g = k.use_gamma ? gamma(i % C) : 1.0, b = k.use_beta && beta.size() == C ? beta(i % C) : 0.0;
    if (k.swap_gamma_beta) std::swap(g, b);
    y.data()[i] = g * s.xhat.data()[i] + b;
  }
  return y;
}

Outputs norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps, const NormKnobs& k) {
  const Stats s = stats(x, eps, k);
  const std::size_t C = last_dim(x), R = rows_of(x), groups = s.mean.size();
  Array g = dy;
  if (k.gamma_in_dx)
    for (std::size_t i = 0; i < g.size(); ++i) g.data()[i] *= gamma(i % C);
  std::vector<double> mg(groups, 0.0), mgx(groups, 0.0);
  for (std::size_t i = 0; i < g.size(); ++i) mg[s.group[i]] += g.data()[i], mgx[s.group[i]] += g.data()[i] * s.xhat.data()[i];
  for (std::size_t q = 0; q < groups; ++q) {
    mg[q] /= s.count[q];
    mgx[q] /= s.count[q] - (k.ddof_in_derivative ? k.ddof : 0);
  }
  Array dx = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t q = s.group[i];
    const double sigma = s.sigma[q];
    const double factor = k.scale == Scale::sigma ? 1 / sigma : k.scale == Scale::sigma_squared ? 1 / (sigma * sigma) : sigma;
    double v = g.data()[i];
    if (k.center && k.mean_term) v -= mg[q];
    if (k.projection_term) v -= s.xhat.data()[i] * mgx[q];
    dx.data()[i] = factor * v;
  }
  const Array& by = k.dgamma_uses_x ? x : s.xhat;
  Array dgamma = k.sum_dgamma ? Array(xt::zeros<double>({C})) : Array(dy * by);
  Array dbeta = k.sum_dbeta ? Array(xt::zeros<double>({C})) : Array(dy);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      if (k.sum_dgamma) dgamma(c) += dy.data()[r * C + c] * by.data()[r * C + c];
      if (k.sum_dbeta) dbeta(c) += dy.data()[r * C + c];
    }
  return {dx, dgamma, dbeta};
}

// ---- hints ----
const std::map<std::string, Text>& hints() {
  static const std::map<std::string, Text> h = {
      {"eps_outside_sqrt",
       {"You divided by (σ + ε), as the first seed article does, instead of sqrt(σ² + ε). ε belongs under the square "
        "root: with a small variance the two differ a lot (x = [3, 3.001, 3.002] gives -0.31 against -1.21), and "
        "sqrt(σ²) has an infinite derivative at σ = 0.",
        "你除以的是 (σ + ε)（第一篇种子文章就是这样写的），而不是 sqrt(σ² + ε)。ε 应该放在根号里面："
        "方差很小时两者差别很大（x = [3, 3.001, 3.002] 时分别得到 -0.31 和 -1.21），而且 sqrt(σ²) 在 σ = 0 处导数无穷大。"}},
      {"unbiased_variance",
       {"You used the unbiased variance, dividing by N − 1. Normalization layers use the biased one, Σ(x − μ)² / N "
        "(PyTorch too; only BatchNorm's running_var uses N − 1). With small N the difference is large.",
        "你用了无偏方差（除以 N − 1）。归一化层用的是有偏方差 Σ(x − μ)² / N（PyTorch 也是；只有 BatchNorm 的 "
        "running_var 用 N − 1）。N 小时差别很大。"}},
      {"wrong_axis",
       {"Your statistics are over the wrong axis. LayerNorm normalizes each row over its last axis (the features "
        "of one token); BatchNorm normalizes each feature over the batch (every axis but the last). This is the "
        "third seed's 误区一.",
        "统计量的轴错了。LayerNorm 对每一行沿最后一个轴（一个 token 的特征）归一化；BatchNorm 对每个特征沿批次"
        "（除最后一个轴以外的所有轴）归一化。这就是第三篇种子文章的“误区一”。"}},
      {"affine_missing",
       {"γ or β is ignored: the output is x̂, or γ·x̂, or x̂ + β. Tests with γ = 1 and β = 0 (how the layers "
        "start) cannot see this; these cases use γ and β that are not 1 and 0.",
        "γ 或 β 被忽略了：输出是 x̂、γ·x̂ 或 x̂ + β。γ = 1、β = 0（层的初始值）的测试看不出这个错误；这些用例里 γ 和 β 不是 1 和 0。"}},
      {"gamma_beta_swapped",
       {"γ and β are swapped: you computed β·x̂ + γ. γ (weight) scales, β (bias) shifts: y = γ·x̂ + β.",
        "γ 和 β 写反了：你算的是 β·x̂ + γ。γ（weight）负责缩放，β（bias）负责平移：y = γ·x̂ + β。"}},
      {"eps_missing",
       {"ε is missing: you divided by sqrt(σ²). A constant row has σ = 0 and gives 0/0 = NaN; ε keeps the "
        "division finite. Add it under the square root: sqrt(σ² + ε).",
        "漏了 ε：你除以的是 sqrt(σ²)。常数行的 σ = 0，得到 0/0 = NaN；ε 让除法保持有限。把它加在根号里：sqrt(σ² + ε)。"}},
      {"one_pass_variance",
       {"Your variance is E[x²] − E[x]² (the third seed calls it \"stable\"; it is not). With a large mean (1e6) "
        "both terms are ~1e12 and their difference loses every digit. Subtract the mean first: mean((x − μ)²), "
        "or use Welford's update.",
        "你的方差是 E[x²] − E[x]²（第三篇种子文章称之为“数值稳定”，其实不是）。均值很大（1e6）时两项都约为 1e12，"
        "相减后有效数字全部丢失。先减去均值：mean((x − μ)²)，或者用 Welford 算法。"}},
      {"mean_term_missing",
       {"μ was treated as a constant: the − mean(g) term of dx is missing (g = γ·dy). Every x_i moves the mean, "
        "so each x_i's gradient also gets −(1/N)Σg: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.",
        "把 μ 当成了常数：dx 少了 − mean(g) 这一项（g = γ·dy）。每个 x_i 都会改变均值，所以每个梯度还要加上 −(1/N)Σg："
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ。"}},
      {"projection_term_missing",
       {"σ was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy). Every x_i moves the "
        "variance too; that is the term through σ: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.",
        "把 σ 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy）。每个 x_i 也会改变方差，这一项就是经过 σ 的那条路径："
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ。"}},
      {"gamma_not_applied",
       {"γ is missing from dx: the gradient reaching x̂ is γ·dy, not dy. It goes unseen while γ = 1 (how the "
        "layer starts), so it can cost days (llm.c PR 763).",
        "dx 里漏了 γ：传到 x̂ 的梯度是 γ·dy，不是 dy。γ = 1（层的初始值）时看不出来，所以这种错误可能要查好几天（llm.c PR 763）。"}},
      {"grads_not_summed",
       {"dγ or dβ was not summed over the rows: it has x's shape instead of γ's. γ is shared by every row, so its "
        "gradient is the sum of every row's: dγ = Σ_rows dy·x̂, dβ = Σ_rows dy. A single row hides this.",
        "dγ 或 dβ 没有对所有行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以梯度是所有行的和："
        "dγ = Σ_行 dy·x̂，dβ = Σ_行 dy。只有一行的测试看不出这个错误。"}},
      {"dgamma_uses_x",
       {"dγ was computed from x instead of x̂. γ multiplies the normalized x̂, so dγ = Σ dy·x̂ with "
        "x̂ = (x − μ)/sqrt(σ² + ε).",
        "dγ 用的是 x 而不是 x̂。γ 乘的是归一化后的 x̂，所以 dγ = Σ dy·x̂，其中 x̂ = (x − μ)/sqrt(σ² + ε)。"}},
      {"wrong_scale",
       {"dx has the right shape of formula but the wrong scale: you divided by σ² (or multiplied by σ) instead "
        "of dividing by σ = sqrt(var + ε). x̂ = (x − μ)/σ, so each path through x̂ carries exactly one 1/σ.",
        "dx 的形式对，但比例错了：你除以了 σ²（或乘了 σ），而应该除以 σ = sqrt(var + ε)。x̂ = (x − μ)/σ，"
        "所以经过 x̂ 的每条路径恰好带一个 1/σ。"}},
      {"subtracts_mean",
       {"You wrote LayerNorm: RMSNorm does not subtract the mean. It divides by the root mean square, "
        "rms = sqrt(mean(x²) + ε), not by the standard deviation; [3, 4, 5] gives [0.73, 0.98, 1.22], not "
        "[-1.22, 0, 1.22].",
        "你写成了 LayerNorm：RMSNorm 不减均值。它除以均方根 rms = sqrt(mean(x²) + ε)，而不是标准差；"
        "[3, 4, 5] 得到 [0.73, 0.98, 1.22]，而不是 [-1.22, 0, 1.22]。"}},
  };
  return h;
}

Mistake mistake(const std::string& id, Runner run, bool by_pattern = false) {
  return {id, std::move(run), hints().at(id), by_pattern};
}

// Forward mistakes: (id, knobs) pairs applied to y.
std::vector<std::pair<std::string, NormKnobs>> forward_mistakes(NormKnobs base, bool batch_norm) {
  std::vector<std::pair<std::string, NormKnobs>> m;
  auto with = [&](auto change) {
    NormKnobs k = base;
    change(k);
    return k;
  };
  m.push_back({"eps_outside_sqrt", with([](NormKnobs& k) { k.eps_at = EpsAt::outside; })});
  if (base.center) m.push_back({"unbiased_variance", with([](NormKnobs& k) { k.ddof = 1; })});
  if (base.center) {
    m.push_back({"wrong_axis", with([&](NormKnobs& k) { k.over = batch_norm ? Over::rows : Over::columns; })});
    m.push_back({"wrong_axis", with([](NormKnobs& k) { k.over = Over::everything; })});
  }
  m.push_back({"affine_missing", with([](NormKnobs& k) { k.use_gamma = false; })});
  if (base.center) {
    m.push_back({"affine_missing", with([](NormKnobs& k) { k.use_beta = false; })});
    m.push_back({"affine_missing", with([](NormKnobs& k) { k.use_gamma = k.use_beta = false; })});
    m.push_back({"gamma_beta_swapped", with([](NormKnobs& k) { k.swap_gamma_beta = true; })});
  }
  m.push_back({"eps_missing", with([](NormKnobs& k) { k.eps_at = EpsAt::missing; })});
  if (!base.center) m.push_back({"subtracts_mean", with([](NormKnobs& k) { k.center = true; })});
  return m;
}

std::vector<std::pair<std::string, NormKnobs>> backward_mistakes(NormKnobs base, bool batch_norm) {
  std::vector<std::pair<std::string, NormKnobs>> m;
  auto with = [&](auto change) {
    NormKnobs k = base;
    change(k);
    return k;
  };
  if (base.center) m.push_back({"mean_term_missing", with([](NormKnobs& k) { k.mean_term = false; })});
  m.push_back({"projection_term_missing", with([](NormKnobs& k) { k.projection_term = false; })});
  if (base.center) {
    m.push_back({"mean_term_missing", with([](NormKnobs& k) { k.mean_term = k.projection_term = false; })});
    m.push_back({"wrong_axis", with([&](NormKnobs& k) { k.over = batch_norm ? Over::rows : Over::columns; })});
    m.push_back({"unbiased_variance", with([](NormKnobs& k) { k.ddof = 1; })});
    m.push_back({"unbiased_variance", with([](NormKnobs& k) { k.ddof = 1, k.ddof_in_derivative = true; })});
  }
  m.push_back({"gamma_not_applied", with([](NormKnobs& k) { k.gamma_in_dx = false; })});
  m.push_back({"grads_not_summed", with([](NormKnobs& k) { k.sum_dgamma = k.sum_dbeta = false; })});
  m.push_back({"grads_not_summed", with([](NormKnobs& k) { k.sum_dgamma = false; })});
  if (base.center) m.push_back({"grads_not_summed", with([](NormKnobs& k) { k.sum_dbeta = false; })});
  m.push_back({"dgamma_uses_x", with([](NormKnobs& k) { k.dgamma_uses_x = true; })});
  m.push_back({"wrong_scale", with([](NormKnobs& k) { k.scale = Scale::sigma_squared; })});
  m.push_back({"wrong_scale", with([](NormKnobs& k) { k.scale = Scale::times_sigma; })});
  m.push_back({"eps_outside_sqrt", with([](NormKnobs& k) { k.eps_at = EpsAt::outside; })});
  if (!base.center) m.push_back({"subtracts_mean", with([](NormKnobs& k) { k.center = true; })});
  return m;
}

const NormKnobs kLayerNorm{};
NormKnobs rms_knobs() {
  NormKnobs k;
  k.center = false;
  k.use_beta = false;  // RMSNorm has no β (the cases' β is ignored)
  return k;
}
NormKnobs batch_knobs() {
  NormKnobs k;
  k.over = Over::columns;
  return k;
}

Outputs library_layer_norm(const Case& c) {
  const std::size_t n = last_dim(c.in[0]);
  return value_and_grads([&](const std::vector<Tensor>& t) { return layer_norm(t[0], {n}, t[1], t[2], c.eps); },
                         {c.in[0], c.in[1], c.in[2]}, c.in[3]);  // y, dx, dgamma, dbeta
}

// A full (forward, backward) implementation from two sets of knobs: {y, dx, dgamma, dbeta}.
Outputs knobbed(const Case& c, const NormKnobs& fwd, const NormKnobs& bwd) {
  Outputs out{norm_forward(c.in[0], c.in[1], c.in[2], c.eps, fwd)};
  Outputs grads = norm_backward(c.in[3], c.in[0], c.in[1], c.eps, bwd);
  out.insert(out.end(), grads.begin(), grads.end());
  return out;
}

// Mistakes of a forward-and-backward exercise: {y, dx, dgamma[, dbeta]}. A forward mistake is usually
// made in the backward too (the same statistics), so each comes both ways.
std::vector<Mistake> both_ways(const NormKnobs& base, bool batch_norm, bool with_dbeta) {
  std::vector<Mistake> out;
  auto cut = [with_dbeta](Outputs o) {
    if (!with_dbeta) o.pop_back();
    return o;
  };
  for (const auto& [id, k] : forward_mistakes(base, batch_norm)) {
    NormKnobs fwd = k, bwd = k;
    bwd.use_gamma = bwd.use_beta = true, bwd.swap_gamma_beta = false;
    out.push_back(mistake(id, [=](const Case& c) { return cut(knobbed(c, fwd, bwd)); }));
    out.push_back(mistake(id, [=](const Case& c) { return cut(knobbed(c, fwd, base)); }));
  }
  for (const auto& [id, k] : backward_mistakes(base, batch_norm))
    out.push_back(mistake(id, [=](const Case& c) { return cut(knobbed(c, base, k)); }));
  if (base.center) {  // RMSNorm has no mean to cancel against
    NormKnobs one_pass = base;
    one_pass.one_pass = true;
    out.push_back(mistake("one_pass_variance", [=](const Case& c) { return cut(knobbed(c, one_pass, one_pass)); }, true));
  }
  return out;
}

}  // namespace

Spec layer_norm_forward_spec() {
  Spec s;
  s.exercise = "layer_norm_forward";
  s.cases = row_cases();
  s.reference = [](const Case& c) { return Outputs{library_layer_norm(c)[0]}; };
  for (const auto& [id, k] : forward_mistakes(kLayerNorm, false))
    s.mistakes.push_back(mistake(id, [k = k](const Case& c) {
      return Outputs{norm_forward(c.in[0], c.in[1], c.in[2], c.eps, k)};
    }));
  NormKnobs one_pass;
  one_pass.one_pass = true;
  s.mistakes.push_back(mistake("one_pass_variance", [=](const Case& c) {
    return Outputs{norm_forward(c.in[0], c.in[1], c.in[2], c.eps, one_pass)};
  }, true));
  return s;
}

Spec layer_norm_backward_spec() {
  Spec s;
  s.exercise = "layer_norm_backward";
  s.cases = row_cases();
  s.reference = [](const Case& c) {
    Outputs o = library_layer_norm(c);
    return Outputs{o[1], o[2], o[3]};
  };
  for (const auto& [id, k] : backward_mistakes(kLayerNorm, false))
    s.mistakes.push_back(mistake(id, [k = k](const Case& c) { return norm_backward(c.in[3], c.in[0], c.in[1], c.eps, k); }));
  NormKnobs one_pass;
  one_pass.one_pass = true;
  s.mistakes.push_back(mistake("one_pass_variance", [=](const Case& c) {
    return norm_backward(c.in[3], c.in[0], c.in[1], c.eps, one_pass);
  }, true));
  return s;
}

Spec rms_norm_spec() {
  Spec s;
  s.exercise = "rms_norm";
  s.cases = row_cases();
  s.reference = [](const Case& c) {
    const std::size_t n = last_dim(c.in[0]);
    return value_and_grads([&](const std::vector<Tensor>& t) { return rms_norm(t[0], {n}, t[1], c.eps); },
                           {c.in[0], c.in[1]}, c.in[3]);  // y, dx, dgamma
  };
  s.mistakes = both_ways(rms_knobs(), false, false);
  s.fd = {0, 0, 3, 1};
  return s;
}

Spec batch_norm_spec() {
  Spec s;
  s.exercise = "batch_norm";
  s.cases = column_cases();
  s.reference = [](const Case& c) {
    return value_and_grads(
        [&](const std::vector<Tensor>& t) { return batch_norm(t[0], Tensor{}, Tensor{}, t[1], t[2], true, 0.1, c.eps); },
        {c.in[0], c.in[1], c.in[2]}, c.in[3]);
  };
  s.mistakes = both_ways(batch_knobs(), true, true);
  for (Mistake& m : s.mistakes)
    if (m.id == "wrong_axis")
      m.hint = {"Your statistics are over the features (each row), as LayerNorm's: BatchNorm normalizes each "
                "feature (the last axis) over the batch, every other axis. Reduce over the rows, keep the columns.",
                "你的统计量是沿特征（每一行）计算的，那是 LayerNorm：BatchNorm 对每个特征（最后一个轴）沿批次"
                "（其余所有轴）归一化。对行求统计量，保留列。"};
  s.fd = {0, 0, 3, 1};
  return s;
}

}  // namespace tapegrad::exercise::detail
