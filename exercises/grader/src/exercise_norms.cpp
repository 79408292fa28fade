// Exercises 2 to 5: LayerNorm forward, LayerNorm backward, RMSNorm, BatchNorm (features last).
// The reference is the library's op (its value and its autograd gradients); the catalogue is one
// normalisation on plain loops with a knob per known mistake (NormKnobs), run on the same inputs.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

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
  cases.push_back(norm_case({"worked example x = [3, 4, 5]", "例题 x = [3, 4, 5]"}, Array{3.0, 4.0, 5.0}, d, 1e-5, true, false));
  cases.push_back(norm_case({"worked example x = [3, 3.001, 3.002] (spread ~ eps)", "例题 x = [3, 3.001, 3.002]（方差与 eps 同量级）"},
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
  cases.push_back(norm_case({"worked example x = [3, 4, 5] as a batch of 3, C = 1", "例题 x = [3, 4, 5]，批大小 3，C = 1"},
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
// LayerNorm's group, BatchNorm's, the whole tensor, axis 0 only (xt::mean(x, {0}): numpy's habit)
enum class Over { rows, columns, everything, first_axis };
enum class EpsAt { inside, outside, missing };  // sqrt(var + eps), sqrt(var) + eps, sqrt(var)
enum class Scale { sigma, sigma_squared, times_sigma, none };
// Accumulators declared outside the loop over groups: `m += x; m /= N` (in place) or `s += x; m = s/N`.
enum class Carry { none, in_place, running_sum };
enum class SumOver { rows, first_axis, last_axis };  // dγ, dβ: over every leading axis (right), axis 0, the last

struct NormKnobs {
  bool center = true;  // false: RMSNorm
  Over over = Over::rows;
  int ddof = 0;
  bool ddof_in_derivative = false;  // unbiased variance differentiated consistently
  EpsAt eps_at = EpsAt::inside;
  bool one_pass = false;  // E[x²] − E[x]²
  Carry carry = Carry::none;
  bool use_gamma = true, use_beta = true, swap_gamma_beta = false;
  // backward
  bool mean_term = true, projection_term = true, gamma_in_dx = true;
  bool means_as_sums = false;     // Σg, Σ(g·x̂) where mean(g), mean(g·x̂) belong
  double projection_sign = -1;    // dx = (g − mean(g) + sign·x̂·mean(g·x̂)) / σ
  bool sum_dgamma = true, sum_dbeta = true, dgamma_uses_x = false;
  SumOver dgamma_over = SumOver::rows, dbeta_over = SumOver::rows;
  Scale scale = Scale::sigma;
};

bool same(const NormKnobs& a, const NormKnobs& b) {
  auto tie = [](const NormKnobs& k) {
    return std::tie(k.center, k.over, k.ddof, k.ddof_in_derivative, k.eps_at, k.one_pass, k.carry, k.use_gamma,
                    k.use_beta, k.swap_gamma_beta, k.mean_term, k.projection_term, k.gamma_in_dx, k.means_as_sums,
                    k.projection_sign, k.sum_dgamma, k.sum_dbeta, k.dgamma_uses_x, k.dgamma_over, k.dbeta_over, k.scale);
  };
  return tie(a) == tie(b);
}

// Per element: its group; per group: mean and σ (the denominator); x̂.
struct Stats {
  std::vector<std::size_t> group;
  std::vector<double> mean, sigma, count;
  Array xhat;
};

// The group of element i: its row, its column, 0, or its index past axis 0.
std::size_t group_of(const Array& x, std::size_t i, Over over) {
  const std::size_t C = last_dim(x);
  switch (over) {
    case Over::rows: return i / C;
    case Over::columns: return i % C;
    case Over::everything: return 0;
    default: return x.dimension() <= 1 ? 0 : i % (x.size() / x.shape()[0]);
  }
}
std::size_t group_count(const Array& x, Over over) {
  switch (over) {
    case Over::rows: return rows_of(x);
    case Over::columns: return last_dim(x);
    case Over::everything: return 1;
    default: return x.dimension() <= 1 ? 1 : x.size() / x.shape()[0];
  }
}

// Group by group, in order; with a carry, each starts from the previous group's accumulator.
std::vector<double> carried(const std::vector<double>& sums, const std::vector<double>& count, Carry carry) {
  std::vector<double> out(sums.size());
  double acc = 0;
  for (std::size_t g = 0; g < sums.size(); ++g) {
    if (carry == Carry::in_place) acc = (acc + sums[g]) / count[g], out[g] = acc;
    else if (carry == Carry::running_sum) acc += sums[g], out[g] = acc / count[g];
    else out[g] = sums[g] / count[g];
  }
  return out;
}

Stats stats(const Array& x, double eps, const NormKnobs& k) {
  Stats s;
  const std::size_t groups = group_count(x, k.over);
  s.group.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s.group[i] = group_of(x, i, k.over);
  s.count.assign(groups, 0.0);
  std::vector<double> sum(groups, 0.0), sq(groups, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    s.count[s.group[i]] += 1, sum[s.group[i]] += x.data()[i], sq[s.group[i]] += x.data()[i] * x.data()[i];
  s.mean = k.center ? carried(sum, s.count, k.carry) : std::vector<double>(groups, 0.0);
  std::vector<double> var(groups, 0.0);
  if (k.one_pass) {
    for (std::size_t g = 0; g < groups; ++g) var[g] = sq[g] / s.count[g] - s.mean[g] * s.mean[g];
  } else {
    std::vector<double> dev(groups, 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = x.data()[i] - s.mean[s.group[i]];
      dev[s.group[i]] += d * d;
    }
    var = carried(dev, s.count, k.carry);
  }
  s.sigma.assign(groups, 0.0);
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

// v summed into γ's shape (N) over every leading axis, or (a mistake) over axis 0 or the last axis only.
Array summed(const Array& v, SumOver over) {
  const std::size_t C = last_dim(v);
  if (over == SumOver::rows) {
    Array out = xt::zeros<double>({C});
    for (std::size_t i = 0; i < v.size(); ++i) out(i % C) += v.data()[i];
    return out;
  }
  const Shape full(v.shape().begin(), v.shape().end());
  const Shape kept = over == SumOver::first_axis ? Shape(full.begin() + 1, full.end()) : Shape(full.begin(), full.end() - 1);
  Array out = xt::zeros<double>(kept);
  const std::size_t inner = v.dimension() == 0 ? 1 : v.size() / full[0];
  for (std::size_t i = 0; i < v.size(); ++i) out.data()[over == SumOver::first_axis ? i % inner : i / C] += v.data()[i];
  return out;
}

Outputs norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps, const NormKnobs& k) {
  const Stats s = stats(x, eps, k);
  const std::size_t C = last_dim(x), groups = s.mean.size();
  Array g = dy;
  if (k.gamma_in_dx)
    for (std::size_t i = 0; i < g.size(); ++i) g.data()[i] *= gamma(i % C);
  std::vector<double> mg(groups, 0.0), mgx(groups, 0.0);
  for (std::size_t i = 0; i < g.size(); ++i) mg[s.group[i]] += g.data()[i], mgx[s.group[i]] += g.data()[i] * s.xhat.data()[i];
  for (std::size_t q = 0; q < groups && !k.means_as_sums; ++q) {
    mg[q] /= s.count[q];
    mgx[q] /= s.count[q] - (k.ddof_in_derivative ? k.ddof : 0);
  }
  Array dx = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t q = s.group[i];
    const double sigma = s.sigma[q];
    const double factor = k.scale == Scale::sigma ? 1 / sigma
                        : k.scale == Scale::sigma_squared ? 1 / (sigma * sigma)
                        : k.scale == Scale::times_sigma ? sigma : 1.0;
    double v = g.data()[i];
    if (k.center && k.mean_term) v -= mg[q];
    if (k.projection_term) v += k.projection_sign * s.xhat.data()[i] * mgx[q];
    dx.data()[i] = factor * v;
  }
  const Array& by = k.dgamma_uses_x ? x : s.xhat;
  const Array dgamma = k.sum_dgamma ? summed(dy * by, k.dgamma_over) : Array(dy * by);
  const Array dbeta = k.sum_dbeta ? summed(dy, k.dbeta_over) : dy;
  return {dx, dgamma, dbeta};
}

// ---- hints, each with its exercise's own formula: LayerNorm's (N features of a row), RMSNorm's (no
// mean, rms = sqrt(mean(x²) + ε)), BatchNorm's (M rows of each feature) ----
enum class Norm { layer, rms, batch };

const std::map<std::string, Text>& layer_norm_hints() {
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
        "of one token): in xtensor xt::mean(x, {x.dimension() - 1}, xt::keep_dims), not {0}, numpy's habit (axis 0 "
        "is the last axis only at rank 1). BatchNorm's axes are the others. The third seed article calls this its "
        "first pitfall.",
        "统计量的轴错了。LayerNorm 对每一行沿最后一个轴（一个 token 的特征）归一化：在 xtensor 里是 "
        "xt::mean(x, {x.dimension() - 1}, xt::keep_dims)，而不是 numpy 习惯的 {0}（只有一维时轴 0 才是最后一个轴）。"
        "BatchNorm 用的是其余的轴。这就是第三篇种子文章的“误区一”。"}},
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
      {"stats_not_reset",
       {"Each row's statistics start where the previous row's ended: the accumulators (the sum, the mean, the "
        "variance) are declared outside the loop over rows and never set back to 0, so only the first row is right. "
        "Declare them inside the loop, or set them to 0 where each row starts.",
        "每一行的统计量从上一行结束的地方开始累加：累加器（和、均值、方差）声明在行循环外面，从未清零，所以只有第一行是对的。"
        "把它们声明在循环里面，或在每一行开始时清零。"}},
      {"sum_instead_of_mean",
       {"A sum where a mean belongs: the Σg and Σ(g·x̂) terms of dx miss their 1/N (g = γ·dy). "
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ with mean over the N features of the row.",
        "该用均值的地方用了求和：dx 里的 Σg 和 Σ(g·x̂) 少了 1/N（g = γ·dy）。dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，"
        "均值是对这一行的 N 个特征求的。"}},
      {"sigma_division_missing",
       {"The final division by σ is missing: you returned g − mean(g) − x̂·mean(g·x̂), and dx is that divided by "
        "σ = sqrt(σ² + ε). x̂ = (x − μ)/σ, so each path through x̂ carries one 1/σ.",
        "漏了最后除以 σ：你返回的是 g − mean(g) − x̂·mean(g·x̂)，而 dx 还要再除以 σ = sqrt(σ² + ε)。x̂ = (x − μ)/σ，"
        "所以经过 x̂ 的每条路径都带一个 1/σ。"}},
      {"projection_sign_flipped",
       {"The projection term has the wrong sign: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, minus x̂·mean(g·x̂). "
        "σ grows as x_i moves away from μ, which makes every |x̂| smaller: that path subtracts.",
        "投影项的符号反了：dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，是减去 x̂·mean(g·x̂)。x_i 远离 μ 时 σ 变大，"
        "所有 |x̂| 都变小：这条路径是减号。"}},
      {"dgamma_wrong_axis",
       {"dγ or dβ was summed over the wrong axis: γ and β have the shape (N) of the last axis, so their gradients "
        "sum over every axis but the last (at rank 3, axes {0, 1}; axis 0 alone is right only at rank 2), never over "
        "the last axis.",
        "dγ 或 dβ 求和的轴错了：γ 和 β 的形状是最后一个轴的 (N)，所以它们的梯度要对除最后一个轴以外的所有轴求和"
        "（三维时是轴 {0, 1}；只对轴 0 求和仅在二维时正确），而不是对最后一个轴求和。"}},
  };
  return h;
}

const std::map<std::string, Text>& rms_norm_hints() {
  static const std::map<std::string, Text> h = {
      {"eps_outside_sqrt",
       {"You divided by (rms + ε) instead of rms = sqrt(mean(x²) + ε). ε belongs under the square root: with "
        "mean(x²) = 1 and ε = 0.1 (the case with eps = 0.1) x/rms is 0.953·x, x/(1 + ε) is 0.909·x.",
        "你除以的是 (rms + ε)，而不是 rms = sqrt(mean(x²) + ε)。ε 应该放在根号里：mean(x²) = 1、ε = 0.1 时"
        "（eps = 0.1 的用例），x/rms 是 0.953·x，x/(1 + ε) 是 0.909·x。"}},
      {"affine_missing",
       {"γ is ignored: the output is x/rms instead of γ·x/rms. Tests with γ = 1 (how the layer starts) cannot see "
        "this; these cases use γ that is not 1. (RMSNorm has no β.)",
        "γ 被忽略了：输出是 x/rms 而不是 γ·x/rms。γ = 1（层的初始值）的测试看不出这个错误；这些用例里 γ 不是 1。"
        "（RMSNorm 没有 β。）"}},
      {"eps_missing",
       {"ε is missing: you divided by sqrt(mean(x²)). A row of zeros gives 0/0 = NaN; ε keeps the division finite: "
        "rms = sqrt(mean(x²) + ε).",
        "漏了 ε：你除以的是 sqrt(mean(x²))。全零的行会得到 0/0 = NaN；ε 让除法保持有限：rms = sqrt(mean(x²) + ε)。"}},
      {"projection_term_missing",
       {"rms was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy, x̂ = x/rms). Every x_i "
        "moves rms too: dx = (g − x̂·mean(g·x̂)) / rms. RMSNorm subtracts no mean, so there is no − mean(g) term.",
        "把 rms 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy，x̂ = x/rms）。每个 x_i 也会改变 rms："
        "dx = (g − x̂·mean(g·x̂)) / rms。RMSNorm 不减均值，所以没有 − mean(g) 这一项。"}},
      {"grads_not_summed",
       {"dγ was not summed over the rows: it has x's shape instead of γ's. γ is shared by every row, so "
        "dγ = Σ_rows dy·x̂ with x̂ = x/rms. A single row hides this.",
        "dγ 没有对所有行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以 dγ = Σ_行 dy·x̂，其中 x̂ = x/rms。"
        "只有一行的测试看不出这个错误。"}},
      {"dgamma_uses_x",
       {"dγ was computed from x instead of x̂. γ multiplies x̂ = x/rms, so dγ = Σ_rows dy·x̂ with "
        "rms = sqrt(mean(x²) + ε).",
        "dγ 用的是 x 而不是 x̂。γ 乘的是 x̂ = x/rms，所以 dγ = Σ_行 dy·x̂，其中 rms = sqrt(mean(x²) + ε)。"}},
      {"wrong_scale",
       {"dx has the right form but the wrong scale: you divided by rms² (or multiplied by rms) instead of dividing "
        "by rms = sqrt(mean(x²) + ε): dx = (g − x̂·mean(g·x̂)) / rms.",
        "dx 的形式对，但比例错了：你除以了 rms²（或乘了 rms），而应该除以 rms = sqrt(mean(x²) + ε)："
        "dx = (g − x̂·mean(g·x̂)) / rms。"}},
      {"sum_instead_of_mean",
       {"A sum where a mean belongs: the Σ(g·x̂) term of dx misses its 1/N (g = γ·dy, x̂ = x/rms): "
        "dx = (g − x̂·mean(g·x̂)) / rms with the mean over the N features of the row.",
        "该用均值的地方用了求和：dx 里的 Σ(g·x̂) 少了 1/N（g = γ·dy，x̂ = x/rms）：dx = (g − x̂·mean(g·x̂)) / rms，"
        "均值是对这一行的 N 个特征求的。"}},
      {"sigma_division_missing",
       {"The final division by rms is missing: you returned g − x̂·mean(g·x̂), and dx is that divided by "
        "rms = sqrt(mean(x²) + ε).",
        "漏了最后除以 rms：你返回的是 g − x̂·mean(g·x̂)，而 dx 还要再除以 rms = sqrt(mean(x²) + ε)。"}},
      {"projection_sign_flipped",
       {"The projection term has the wrong sign: dx = (g − x̂·mean(g·x̂)) / rms, minus x̂·mean(g·x̂) "
        "(g = γ·dy, x̂ = x/rms): rms grows with every |x_i|, which makes every |x̂| smaller.",
        "投影项的符号反了：dx = (g − x̂·mean(g·x̂)) / rms，是减去 x̂·mean(g·x̂)（g = γ·dy，x̂ = x/rms）："
        "任何 |x_i| 变大都会让 rms 变大、所有 |x̂| 变小。"}},
      {"stats_not_reset",
       {"Each row's mean of x² starts where the previous row's ended: the accumulator is declared outside the loop "
        "over rows and never set back to 0, so only the first row is right. Declare it inside the loop.",
        "每一行的 mean(x²) 从上一行结束的地方开始累加：累加器声明在行循环外面，从未清零，所以只有第一行是对的。"
        "把它声明在循环里面。"}},
  };
  return h;
}

const std::map<std::string, Text>& batch_norm_hints() {
  static const std::map<std::string, Text> h = {
      {"eps_outside_sqrt",
       {"You divided by (σ + ε) instead of sqrt(σ² + ε), σ² over the M rows of each feature. ε belongs under the "
        "square root: with σ² = 1 and ε = 0.1 (the case with eps = 0.1) 1/sqrt(1.1) = 0.953 against 1/1.1 = 0.909, "
        "and sqrt(σ²) has an infinite derivative at σ = 0.",
        "你除以的是 (σ + ε)，而不是 sqrt(σ² + ε)（σ² 是每个特征在 M 行上的方差）。ε 应该放在根号里：σ² = 1、ε = 0.1 时"
        "（eps = 0.1 的用例）1/sqrt(1.1) = 0.953，而 1/1.1 = 0.909；而且 sqrt(σ²) 在 σ = 0 处导数无穷大。"}},
      {"unbiased_variance",
       {"You used the unbiased variance, dividing by M − 1 (M = the rows: every axis but the last). BatchNorm "
        "normalizes with the biased one, Σ(x − μ)² / M (PyTorch too); only its running_var uses M − 1. With a batch "
        "of 3 rows the difference is large.",
        "你用了无偏方差（除以 M − 1，M 是行数：除最后一个轴以外的所有轴）。BatchNorm 归一化用的是有偏方差 Σ(x − μ)² / M"
        "（PyTorch 也是）；只有 running_var 用 M − 1。批大小为 3 时差别很大。"}},
      {"wrong_axis",
       {"Your statistics are over the wrong axis. BatchNorm normalizes each feature (the last axis) over the batch, "
        "every other axis: at rank 3 that is xt::mean(x, {0, 1}, xt::keep_dims), not {0} alone (right only at rank "
        "2), and not each row, which is LayerNorm.",
        "统计量的轴错了。BatchNorm 对每个特征（最后一个轴）沿批次（其余所有轴）归一化：三维时是 "
        "xt::mean(x, {0, 1}, xt::keep_dims)，而不只是 {0}（只在二维时正确），也不是每一行（那是 LayerNorm）。"}},
      {"eps_missing",
       {"ε is missing: you divided by sqrt(σ²). A constant feature (the case with one) has σ = 0 and gives 0/0 = NaN; "
        "ε keeps the division finite. Add it under the square root: sqrt(σ² + ε).",
        "漏了 ε：你除以的是 sqrt(σ²)。常数特征列（有一个用例就是这样）的 σ = 0，得到 0/0 = NaN；ε 让除法保持有限。"
        "把它加在根号里：sqrt(σ² + ε)。"}},
      {"mean_term_missing",
       {"μ was treated as a constant: the − mean(g) term of dx is missing (g = γ·dy). Every x_i moves its feature's "
        "batch mean, so each gradient also gets −(1/M)Σ_rows g: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, the means "
        "over the M rows of each feature.",
        "把 μ 当成了常数：dx 少了 − mean(g) 这一项（g = γ·dy）。每个 x_i 都会改变它所在特征的批均值，所以每个梯度还要加上 "
        "−(1/M)Σ_行 g：dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"}},
      {"projection_term_missing",
       {"σ was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy). Every x_i moves its "
        "feature's batch variance too: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, the means over the M rows of each "
        "feature.",
        "把 σ 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy）。每个 x_i 也会改变它所在特征的批方差："
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"}},
      {"grads_not_summed",
       {"dγ or dβ was not summed over the M rows: it has x's shape instead of γ's. γ is shared by every row, so "
        "dγ = Σ_rows dy·x̂, dβ = Σ_rows dy.",
        "dγ 或 dβ 没有对 M 行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以 dγ = Σ_行 dy·x̂，dβ = Σ_行 dy。"}},
      {"dgamma_uses_x",
       {"dγ was computed from x instead of x̂. γ multiplies x̂ = (x − μ_B)/sqrt(σ_B² + ε), with each feature's "
        "mean and variance over the M rows: dγ = Σ_rows dy·x̂.",
        "dγ 用的是 x 而不是 x̂。γ 乘的是 x̂ = (x − μ_B)/sqrt(σ_B² + ε)（每个特征在 M 行上的均值和方差）：dγ = Σ_行 dy·x̂。"}},
      {"sum_instead_of_mean",
       {"A sum where a mean belongs: the Σg and Σ(g·x̂) terms of dx miss their 1/M (g = γ·dy, M = the rows). "
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ with the means over the M rows of each feature.",
        "该用均值的地方用了求和：dx 里的 Σg 和 Σ(g·x̂) 少了 1/M（g = γ·dy，M 是行数）。"
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"}},
      {"stats_not_reset",
       {"Each feature's statistics start where the previous feature's ended: the accumulators (the sum, the mean, "
        "the variance) are declared outside the loop over features and never set back to 0, so only the first "
        "feature is right. Declare them inside the loop.",
        "每个特征的统计量从上一个特征结束的地方开始累加：累加器（和、均值、方差）声明在特征循环外面，从未清零，"
        "所以只有第一个特征是对的。把它们声明在循环里面。"}},
  };
  return h;
}

const Text& hint(Norm norm, const std::string& id) {
  const auto& own = norm == Norm::rms ? rms_norm_hints() : norm == Norm::batch ? batch_norm_hints() : layer_norm_hints();
  const auto it = own.find(id);
  return it != own.end() ? it->second : layer_norm_hints().at(id);
}

// ---- the mistakes: a change of the knobs, in the forward, the backward, or both ----
using Change = std::function<void(NormKnobs&)>;
struct Slip {
  std::string id;
  Change change;
};

std::vector<Slip> forward_slips(const NormKnobs& base, Norm norm) {
  const bool batch = norm == Norm::batch;
  std::vector<Slip> m;
  m.push_back({"eps_outside_sqrt", [](NormKnobs& k) { k.eps_at = EpsAt::outside; }});
  if (base.center) {
    m.push_back({"unbiased_variance", [](NormKnobs& k) { k.ddof = 1; }});
    m.push_back({"wrong_axis", [batch](NormKnobs& k) { k.over = batch ? Over::rows : Over::columns; }});
    m.push_back({"wrong_axis", [](NormKnobs& k) { k.over = Over::everything; }});
    m.push_back({"wrong_axis", [](NormKnobs& k) { k.over = Over::first_axis; }});  // xt::mean(x, {0}) at every rank
  }
  m.push_back({"affine_missing", [](NormKnobs& k) { k.use_gamma = false; }});
  if (base.center) {
    m.push_back({"affine_missing", [](NormKnobs& k) { k.use_beta = false; }});
    m.push_back({"affine_missing", [](NormKnobs& k) { k.use_gamma = k.use_beta = false; }});
    m.push_back({"gamma_beta_swapped", [](NormKnobs& k) { k.swap_gamma_beta = true; }});
  }
  m.push_back({"eps_missing", [](NormKnobs& k) { k.eps_at = EpsAt::missing; }});
  if (!base.center) m.push_back({"subtracts_mean", [](NormKnobs& k) { k.center = true; }});
  m.push_back({"stats_not_reset", [](NormKnobs& k) { k.carry = Carry::in_place; }});
  m.push_back({"stats_not_reset", [](NormKnobs& k) { k.carry = Carry::running_sum; }});
  return m;
}

std::vector<Slip> backward_slips(const NormKnobs& base, Norm norm) {
  const bool batch = norm == Norm::batch;
  std::vector<Slip> m;
  if (base.center) m.push_back({"mean_term_missing", [](NormKnobs& k) { k.mean_term = false; }});
  m.push_back({"projection_term_missing", [](NormKnobs& k) { k.projection_term = false; }});
  if (base.center) {
    m.push_back({"mean_term_missing", [](NormKnobs& k) { k.mean_term = k.projection_term = false; }});
    m.push_back({"wrong_axis", [batch](NormKnobs& k) { k.over = batch ? Over::rows : Over::columns; }});
    m.push_back({"wrong_axis", [](NormKnobs& k) { k.over = Over::first_axis; }});
    m.push_back({"unbiased_variance", [](NormKnobs& k) { k.ddof = 1; }});
    m.push_back({"unbiased_variance", [](NormKnobs& k) { k.ddof = 1, k.ddof_in_derivative = true; }});
  }
  m.push_back({"gamma_not_applied", [](NormKnobs& k) { k.gamma_in_dx = false; }});
  m.push_back({"grads_not_summed", [](NormKnobs& k) { k.sum_dgamma = k.sum_dbeta = false; }});
  m.push_back({"grads_not_summed", [](NormKnobs& k) { k.sum_dgamma = false; }});
  if (base.center) m.push_back({"grads_not_summed", [](NormKnobs& k) { k.sum_dbeta = false; }});
  m.push_back({"dgamma_uses_x", [](NormKnobs& k) { k.dgamma_uses_x = true; }});
  m.push_back({"wrong_scale", [](NormKnobs& k) { k.scale = Scale::sigma_squared; }});
  m.push_back({"wrong_scale", [](NormKnobs& k) { k.scale = Scale::times_sigma; }});
  m.push_back({"eps_outside_sqrt", [](NormKnobs& k) { k.eps_at = EpsAt::outside; }});
  if (!base.center) m.push_back({"subtracts_mean", [](NormKnobs& k) { k.center = true; }});
  m.push_back({"sum_instead_of_mean", [](NormKnobs& k) { k.means_as_sums = true; }});
  m.push_back({"sigma_division_missing", [](NormKnobs& k) { k.scale = Scale::none; }});
  m.push_back({"projection_sign_flipped", [](NormKnobs& k) { k.projection_sign = +1; }});
  for (SumOver over : {SumOver::first_axis, SumOver::last_axis}) {
    m.push_back({"dgamma_wrong_axis", [over](NormKnobs& k) { k.dgamma_over = over; }});
    if (base.center) m.push_back({"dgamma_wrong_axis", [over](NormKnobs& k) { k.dgamma_over = k.dbeta_over = over; }});
  }
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

// The inputs of a case, by name: in = {x, gamma, beta, dy}.
const Array& x_of(const Case& c) { return c.in[0]; }
const Array& gamma_of(const Case& c) { return c.in[1]; }
const Array& beta_of(const Case& c) { return c.in[2]; }
const Array& dy_of(const Case& c) { return c.in[3]; }

// Which exercise: its normalisation, its knobs without a mistake, and what the learner returns.
struct NormExercise {
  Norm norm;
  NormKnobs base;
  bool forward, backward;  // y; dx, dgamma (and dbeta)
  bool with_dbeta;
};

Outputs knobbed(const NormExercise& e, const Case& c, const NormKnobs& fwd, const NormKnobs& bwd) {
  Outputs out;
  if (e.forward) out.push_back(norm_forward(x_of(c), gamma_of(c), beta_of(c), c.eps, fwd));
  if (e.backward) {
    Outputs grads = norm_backward(dy_of(c), x_of(c), gamma_of(c), c.eps, bwd);
    if (!e.with_dbeta) grads.pop_back();
    out.insert(out.end(), grads.begin(), grads.end());
  }
  return out;
}

// A catalogued mistake as changes of the forward's knobs and of the backward's (either may be empty).
struct KnobMistake {
  std::string id;
  Change fwd, bwd;
};

NormKnobs applied(NormKnobs k, const Change& a, const Change& b = {}) {
  if (a) a(k);
  if (b) b(k);
  return k;
}

// A forward mistake is usually made in the backward too (the same statistics), so in an exercise of
// both each comes both ways; a backward mistake is the backward's alone.
std::vector<KnobMistake> knob_mistakes(const NormExercise& e) {
  std::vector<KnobMistake> out;
  if (e.forward)
    for (const Slip& s : forward_slips(e.base, e.norm)) {
      if (!e.backward) {
        out.push_back({s.id, s.change, {}});
        continue;
      }
      const Change change = s.change;
      const Change same_statistics = [change](NormKnobs& k) {
        change(k);
        k.use_gamma = k.use_beta = true, k.swap_gamma_beta = false;
      };
      out.push_back({s.id, s.change, same_statistics});
      out.push_back({s.id, s.change, {}});
    }
  if (e.backward)
    for (const Slip& s : backward_slips(e.base, e.norm)) out.push_back({s.id, {}, s.change});
  return out;
}

Mistake knob_mistake(const NormExercise& e, const std::string& id, const NormKnobs& fwd, const NormKnobs& bwd, Text hint,
                     bool by_pattern = false) {
  return {id, [=](const Case& c) { return knobbed(e, c, fwd, bwd); }, std::move(hint), by_pattern};
}

// The catalogue of an exercise: every knob mistake, E[x²] − E[x]² (by pattern), and every two
// mistakes of different ids made at once, named in the catalogue's order ("a+b").
void add_catalogue(Spec& s, const NormExercise& e) {
  const std::vector<KnobMistake> singles = knob_mistakes(e);
  for (const KnobMistake& m : singles)
    s.mistakes.push_back(knob_mistake(e, m.id, applied(e.base, m.fwd), applied(e.base, m.bwd), hint(e.norm, m.id)));
  if (e.base.center) {  // RMSNorm has no mean to cancel against
    NormKnobs one_pass = e.base;
    one_pass.one_pass = true;
    s.mistakes.push_back(knob_mistake(e, "one_pass_variance", one_pass, one_pass, hint(e.norm, "one_pass_variance"), true));
  }
  std::vector<std::string> order;  // ids by first appearance
  for (const Mistake& m : s.mistakes)
    if (std::find(order.begin(), order.end(), m.id) == order.end()) order.push_back(m.id);
  auto rank = [&](const std::string& id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
  for (std::size_t i = 0; i < singles.size(); ++i)
    for (std::size_t j = i + 1; j < singles.size(); ++j) {
      const KnobMistake *a = &singles[i], *b = &singles[j];
      if (a->id == b->id) continue;
      if (rank(b->id) < rank(a->id)) std::swap(a, b);
      const NormKnobs fwd = applied(e.base, a->fwd, b->fwd), bwd = applied(e.base, a->bwd, b->bwd);
      // one change undoing or overriding the other is no pair (eps outside the root and eps missing)
      const bool is_a = same(fwd, applied(e.base, a->fwd)) && same(bwd, applied(e.base, a->bwd));
      const bool is_b = same(fwd, applied(e.base, b->fwd)) && same(bwd, applied(e.base, b->bwd));
      if (is_a || is_b) continue;
      const Text& ha = hint(e.norm, a->id);
      const Text& hb = hint(e.norm, b->id);
      s.pairs.push_back(knob_mistake(e, a->id + "+" + b->id, fwd, bwd, {ha.en + " " + hb.en, ha.zh + hb.zh}));
    }
}

Outputs library_layer_norm(const Case& c) {
  const std::size_t n = last_dim(x_of(c));
  return value_and_grads([&](const std::vector<Tensor>& t) { return layer_norm(t[0], {n}, t[1], t[2], c.eps); },
                         {x_of(c), gamma_of(c), beta_of(c)}, dy_of(c));  // y, dx, dgamma, dbeta
}

}  // namespace

Spec layer_norm_forward_spec() {
  Spec s;
  s.exercise = "layer_norm_forward";
  s.cases = row_cases();
  s.reference = [](const Case& c) { return Outputs{library_layer_norm(c)[0]}; };
  add_catalogue(s, {Norm::layer, kLayerNorm, true, false, true});
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
  add_catalogue(s, {Norm::layer, kLayerNorm, false, true, true});
  return s;
}

// The backward against finite differences of the learner's forward: dx (output 1, after y) in x.
FiniteDifferences dx_against_forward() {
  FiniteDifferences fd;
  fd.forward_part = 0, fd.grad_output = 1;
  fd.x_input = 0, fd.dy_input = 3;  // x_of, dy_of
  return fd;
}

Spec rms_norm_spec() {
  Spec s;
  s.exercise = "rms_norm";
  s.cases = row_cases();
  s.reference = [](const Case& c) {
    const std::size_t n = last_dim(x_of(c));
    return value_and_grads([&](const std::vector<Tensor>& t) { return rms_norm(t[0], {n}, t[1], c.eps); },
                           {x_of(c), gamma_of(c)}, dy_of(c));  // y, dx, dgamma
  };
  add_catalogue(s, {Norm::rms, rms_knobs(), true, true, false});
  s.fd = dx_against_forward();
  return s;
}

Spec batch_norm_spec() {
  Spec s;
  s.exercise = "batch_norm";
  s.cases = column_cases();
  s.reference = [](const Case& c) {
    return value_and_grads(
        [&](const std::vector<Tensor>& t) { return batch_norm(t[0], Tensor{}, Tensor{}, t[1], t[2], true, 0.1, c.eps); },
        {x_of(c), gamma_of(c), beta_of(c)}, dy_of(c));
  };
  add_catalogue(s, {Norm::batch, batch_knobs(), true, true, true});
  s.fd = dx_against_forward();
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

namespace {
// The learner's gradients as the grader's outputs, in the order the struct lists them.
Outputs norm_grads(const NormGrads& g, bool with_dbeta = true) {
  return with_dbeta ? Outputs{g.dx, g.dgamma, g.dbeta} : Outputs{g.dx, g.dgamma};
}
}  // namespace

Report check_layer_norm_forward(NormForward forward, const Options& options) {
  return graded(layer_norm_forward_spec(),
                {{"layer_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), beta_of(c), c.eps)}; }}},
                options);
}

Report check_layer_norm_backward(NormBackward backward, const Options& options) {
  return graded(layer_norm_backward_spec(),
                {{"layer_norm_backward", {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps)); }}},
                options);
}

Report check_rms_norm(RmsForward forward, NormBackward backward, const Options& options) {
  return graded(rms_norm_spec(),
                {{"rms_norm_forward", {"y"}, [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), c.eps)}; }},
                 {"rms_norm_backward", {"dx", "dgamma"},
                  [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps), false); }}},
                options);
}

Report check_batch_norm(NormForward forward, NormBackward backward, const Options& options) {
  return graded(batch_norm_spec(),
                {{"batch_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), beta_of(c), c.eps)}; }},
                 {"batch_norm_backward", {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps)); }}},
                options);
}

}  // namespace tapegrad::exercise
