// Exercises 2 and 3: LayerNorm forward and LayerNorm backward. The reference is the library's layer_norm (its
// value and its autograd gradients); the catalogue is norm_catalogue.cpp's, with LayerNorm's hints: one per
// mistake, a field of NormHints (a hint left out does not compile).

#include "norm_catalogue.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad::exercise::detail {

const NormHints& layer_norm_hints() {
  static const NormHints h{
      // eps_outside_sqrt
      {"You divided by (σ + ε), as the first seed article does, instead of sqrt(σ² + ε). ε belongs under the square "
       "root: with a small variance the two differ a lot (x = [3, 3.001, 3.002] gives -0.31 against -1.21), and "
       "sqrt(σ²) has an infinite derivative at σ = 0.",
       "你除以的是 (σ + ε)（第一篇种子文章就是这样写的），而不是 sqrt(σ² + ε)。ε 应该放在根号里面："
       "方差很小时两者差别很大（x = [3, 3.001, 3.002] 时分别得到 -0.31 和 -1.21），而且 sqrt(σ²) 在 σ = 0 "
       "处导数无穷大。"},
      // unbiased_variance
      {"You used the unbiased variance, dividing by N − 1. Normalization layers use the biased one, Σ(x − μ)² / N "
       "(PyTorch too; only BatchNorm's running_var uses N − 1). With small N the difference is large.",
       "你用了无偏方差（除以 N − 1）。归一化层用的是有偏方差 Σ(x − μ)² / N（PyTorch 也是；只有 BatchNorm 的 "
       "running_var 用 N − 1）。N 小时差别很大。"},
      // wrong_axis
      {"Your statistics are over the wrong axis. LayerNorm normalizes each row over its last axis (the features "
       "of one token): in xtensor xt::mean(x, {x.dimension() - 1}, xt::keep_dims), not {0}, numpy's habit (axis 0 "
       "is the last axis only at rank 1). BatchNorm's axes are the others. The third seed article calls this its "
       "first pitfall.",
       "统计量的轴错了。LayerNorm 对每一行沿最后一个轴（一个 token 的特征）归一化：在 xtensor 里是 "
       "xt::mean(x, {x.dimension() - 1}, xt::keep_dims)，而不是 numpy 习惯的 {0}（只有一维时轴 0 才是最后一个轴）。"
       "BatchNorm 用的是其余的轴。这就是第三篇种子文章的“误区一”。"},
      // affine_missing
      {"γ or β is ignored: the output is x̂, or γ·x̂, or x̂ + β. Tests with γ = 1 and β = 0 (how the layers "
       "start) cannot see this; these cases use γ and β that are not 1 and 0.",
       "γ 或 β 被忽略了：输出是 x̂、γ·x̂ 或 x̂ + β。γ = 1、β = 0（层的初始值）的测试看不出这个错误；这些用例里 γ 和 β "
       "不是 1 和 0。"},
      // gamma_beta_swapped
      {"γ and β are swapped: you computed β·x̂ + γ. γ (weight) scales, β (bias) shifts: y = γ·x̂ + β.",
       "γ 和 β 写反了：你算的是 β·x̂ + γ。γ（weight）负责缩放，β（bias）负责平移：y = γ·x̂ + β。"},
      // eps_missing
      {"ε is missing: you divided by sqrt(σ²). A constant row has σ = 0 and gives 0/0 = NaN; ε keeps the "
       "division finite. Add it under the square root: sqrt(σ² + ε).",
       "漏了 ε：你除以的是 sqrt(σ²)。常数行的 σ = 0，得到 0/0 = NaN；ε 让除法保持有限。把它加在根号里：sqrt(σ² + ε)。"},
      // one_pass_variance
      {"Your variance is E[x²] − E[x]² (the third seed calls it \"stable\"; it is not). With a large mean (1e6) "
       "both terms are ~1e12 and their difference loses every digit. Subtract the mean first: mean((x − μ)²), "
       "or use Welford's update.",
       "你的方差是 E[x²] − E[x]²（第三篇种子文章称之为“数值稳定”，其实不是）。均值很大（1e6）时两项都约为 1e12，"
       "相减后有效数字全部丢失。先减去均值：mean((x − μ)²)，或者用 Welford 算法。"},
      // mean_term_missing
      {"μ was treated as a constant: the − mean(g) term of dx is missing (g = γ·dy). Every x_i moves the mean, "
       "so each x_i's gradient also gets −(1/N)Σg: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.",
       "把 μ 当成了常数：dx 少了 − mean(g) 这一项（g = γ·dy）。每个 x_i 都会改变均值，所以每个梯度还要加上 −(1/N)Σg："
       "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ。"},
      // projection_term_missing
      {"σ was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy). Every x_i moves the "
       "variance too; that is the term through σ: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ.",
       "把 σ 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy）。每个 x_i 也会改变方差，这一项就是经过 σ 的那条路径："
       "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ。"},
      // gamma_not_applied
      {"γ is missing from dx: the gradient reaching x̂ is γ·dy, not dy. It goes unseen while γ = 1 (how the "
       "layer starts), so it can cost days (llm.c PR 763).",
       "dx 里漏了 γ：传到 x̂ 的梯度是 γ·dy，不是 dy。γ = 1（层的初始值）时看不出来，所以这种错误可能要查好几天（llm.c "
       "PR 763）。"},
      // grads_not_summed
      {"dγ or dβ was not summed over the rows: it has x's shape instead of γ's. γ is shared by every row, so its "
       "gradient is the sum of every row's: dγ = Σ_rows dy·x̂, dβ = Σ_rows dy. A single row hides this.",
       "dγ 或 dβ 没有对所有行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以梯度是所有行的和："
       "dγ = Σ_行 dy·x̂，dβ = Σ_行 dy。只有一行的测试看不出这个错误。"},
      // dgamma_uses_x
      {"dγ was computed from x instead of x̂. γ multiplies the normalized x̂, so dγ = Σ dy·x̂ with "
       "x̂ = (x − μ)/sqrt(σ² + ε).",
       "dγ 用的是 x 而不是 x̂。γ 乘的是归一化后的 x̂，所以 dγ = Σ dy·x̂，其中 x̂ = (x − μ)/sqrt(σ² + ε)。"},
      // wrong_scale
      {"dx has the right shape of formula but the wrong scale: you divided by σ² (or multiplied by σ) instead "
       "of dividing by σ = sqrt(var + ε). x̂ = (x − μ)/σ, so each path through x̂ carries exactly one 1/σ.",
       "dx 的形式对，但比例错了：你除以了 σ²（或乘了 σ），而应该除以 σ = sqrt(var + ε)。x̂ = (x − μ)/σ，"
       "所以经过 x̂ 的每条路径恰好带一个 1/σ。"},
      // subtracts_mean
      {"You wrote LayerNorm: RMSNorm does not subtract the mean. It divides by the root mean square, "
       "rms = sqrt(mean(x²) + ε), not by the standard deviation; [3, 4, 5] gives [0.73, 0.98, 1.22], not "
       "[-1.22, 0, 1.22].",
       "你写成了 LayerNorm：RMSNorm 不减均值。它除以均方根 rms = sqrt(mean(x²) + ε)，而不是标准差；"
       "[3, 4, 5] 得到 [0.73, 0.98, 1.22]，而不是 [-1.22, 0, 1.22]。"},
      // stats_not_reset
      {"Each row's statistics start where the previous row's ended: the accumulators (the sum, the mean, the "
       "variance) are declared outside the loop over rows and never set back to 0, so only the first row is right. "
       "Declare them inside the loop, or set them to 0 where each row starts.",
       "每一行的统计量从上一行结束的地方开始累加：累加器（和、均值、方差）声明在行循环外面，从未清零，所以只有第一行是"
       "对的。"
       "把它们声明在循环里面，或在每一行开始时清零。"},
      // sum_instead_of_mean
      {"A sum where a mean belongs: the Σg and Σ(g·x̂) terms of dx miss their 1/N (g = γ·dy). "
       "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ with mean over the N features of the row.",
       "该用均值的地方用了求和：dx 里的 Σg 和 Σ(g·x̂) 少了 1/N（g = γ·dy）。dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，"
       "均值是对这一行的 N 个特征求的。"},
      // sigma_division_missing
      {"The final division by σ is missing: you returned g − mean(g) − x̂·mean(g·x̂), and dx is that divided by "
       "σ = sqrt(σ² + ε). x̂ = (x − μ)/σ, so each path through x̂ carries one 1/σ.",
       "漏了最后除以 σ：你返回的是 g − mean(g) − x̂·mean(g·x̂)，而 dx 还要再除以 σ = sqrt(σ² + ε)。x̂ = (x − μ)/σ，"
       "所以经过 x̂ 的每条路径都带一个 1/σ。"},
      // projection_sign_flipped
      {"The projection term has the wrong sign: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, minus x̂·mean(g·x̂). "
       "σ grows as x_i moves away from μ, which makes every |x̂| smaller: that path subtracts.",
       "投影项的符号反了：dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，是减去 x̂·mean(g·x̂)。x_i 远离 μ 时 σ 变大，"
       "所有 |x̂| 都变小：这条路径是减号。"},
      // dgamma_wrong_axis
      {"dγ or dβ was summed over the wrong axis: γ and β have the shape (N) of the last axis, so their gradients "
       "sum over every axis but the last (at rank 3, axes {0, 1}; axis 0 alone is right only at rank 2), never over "
       "the last axis.",
       "dγ 或 dβ 求和的轴错了：γ 和 β 的形状是最后一个轴的 (N)，所以它们的梯度要对除最后一个轴以外的所有轴求和"
       "（三维时是轴 {0, 1}；只对轴 0 求和仅在二维时正确），而不是对最后一个轴求和。"}};
  return h;
}

namespace {

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
  add_catalogue(s, {Norm::layer, layer_norm_hints(), true, false, true});
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
  add_catalogue(s, {Norm::layer, layer_norm_hints(), false, true, true});
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_layer_norm_forward(NormForward forward, const Options& options) {
  return graded(layer_norm_forward_spec(),
                {{"layer_norm_forward",
                  {"y"},
                  [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), beta_of(c), c.eps)}; }}},
                options);
}

Report check_layer_norm_backward(NormBackward backward, const Options& options) {
  return graded(layer_norm_backward_spec(),
                {{"layer_norm_backward",
                  {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps)); }}},
                options);
}

}  // namespace tapegrad::exercise
