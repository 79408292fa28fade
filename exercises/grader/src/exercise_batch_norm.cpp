// Exercise 5: BatchNorm forward and backward (training mode, features last). The reference is the library's
// batch_norm; the catalogue is norm_catalogue.cpp's, with LayerNorm's hints where BatchNorm's formula is the
// same and its own (M rows of each feature) where it differs.

#include "norm_catalogue.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad::exercise::detail {

namespace {

// BatchNorm's hints: LayerNorm's, with BatchNorm's own formula (M rows of a feature) where it differs.
const NormHints& batch_norm_hints() {
  static const NormHints hints = [] {
    NormHints h = layer_norm_hints();
    h.eps_outside_sqrt = {
        "You divided by (σ + ε) instead of sqrt(σ² + ε), σ² over the M rows of each feature. ε belongs under the "
        "square root: with σ² = 1 and ε = 0.1 (the case with eps = 0.1) 1/sqrt(1.1) = 0.953 against 1/1.1 = 0.909, "
        "and sqrt(σ²) has an infinite derivative at σ = 0.",
        "你除以的是 (σ + ε)，而不是 sqrt(σ² + ε)（σ² 是每个特征在 M 行上的方差）。ε 应该放在根号里：σ² = 1、ε = 0.1 时"
        "（eps = 0.1 的用例）1/sqrt(1.1) = 0.953，而 1/1.1 = 0.909；而且 sqrt(σ²) 在 σ = 0 处导数无穷大。"};
    h.unbiased_variance = {
        "You used the unbiased variance, dividing by M − 1 (M = the rows: every axis but the last). BatchNorm "
        "normalizes with the biased one, Σ(x − μ)² / M (PyTorch too); only its running_var uses M − 1. With a batch "
        "of 3 rows the difference is large.",
        "你用了无偏方差（除以 M − 1，M 是行数：除最后一个轴以外的所有轴）。BatchNorm 归一化用的是有偏方差 Σ(x − μ)² / M"
        "（PyTorch 也是）；只有 running_var 用 M − 1。批大小为 3 时差别很大。"};
    h.wrong_axis = {
        "Your statistics are over the wrong axis. BatchNorm normalizes each feature (the last axis) over the batch, "
        "every other axis: at rank 3 that is xt::mean(x, {0, 1}, xt::keep_dims), not {0} alone (right only at rank "
        "2), and not each row, which is LayerNorm.",
        "统计量的轴错了。BatchNorm 对每个特征（最后一个轴）沿批次（其余所有轴）归一化：三维时是 "
        "xt::mean(x, {0, 1}, xt::keep_dims)，而不只是 {0}（只在二维时正确），也不是每一行（那是 LayerNorm）。"};
    h.eps_missing = {
        "ε is missing: you divided by sqrt(σ²). A constant feature (the case with one) has σ = 0 and gives 0/0 = NaN; "
        "ε keeps the division finite. Add it under the square root: sqrt(σ² + ε).",
        "漏了 ε：你除以的是 sqrt(σ²)。常数特征列（有一个用例就是这样）的 σ = 0，得到 0/0 = NaN；ε 让除法保持有限。"
        "把它加在根号里：sqrt(σ² + ε)。"};
    h.mean_term_missing = {
        "μ was treated as a constant: the − mean(g) term of dx is missing (g = γ·dy). Every x_i moves its feature's "
        "batch mean, so each gradient also gets −(1/M)Σ_rows g: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, the means "
        "over the M rows of each feature.",
        "把 μ 当成了常数：dx 少了 − mean(g) 这一项（g = γ·dy）。每个 x_i "
        "都会改变它所在特征的批均值，所以每个梯度还要加上 "
        "−(1/M)Σ_行 g：dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"};
    h.projection_term_missing = {
        "σ was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy). Every x_i moves its "
        "feature's batch variance too: dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, the means over the M rows of each "
        "feature.",
        "把 σ 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy）。每个 x_i 也会改变它所在特征的批方差："
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"};
    h.grads_not_summed = {
        "dγ or dβ was not summed over the M rows: it has x's shape instead of γ's. γ is shared by every row, so "
        "dγ = Σ_rows dy·x̂, dβ = Σ_rows dy.",
        "dγ 或 dβ 没有对 M 行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以 dγ = Σ_行 dy·x̂，dβ = Σ_行 dy。"};
    h.dgamma_uses_x = {
        "dγ was computed from x instead of x̂. γ multiplies x̂ = (x − μ_B)/sqrt(σ_B² + ε), with each feature's "
        "mean and variance over the M rows: dγ = Σ_rows dy·x̂.",
        "dγ 用的是 x 而不是 x̂。γ 乘的是 x̂ = (x − μ_B)/sqrt(σ_B² + ε)（每个特征在 M 行上的均值和方差）：dγ = Σ_行 "
        "dy·x̂。"};
    h.sum_instead_of_mean = {
        "A sum where a mean belongs: the Σg and Σ(g·x̂) terms of dx miss their 1/M (g = γ·dy, M = the rows). "
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ with the means over the M rows of each feature.",
        "该用均值的地方用了求和：dx 里的 Σg 和 Σ(g·x̂) 少了 1/M（g = γ·dy，M 是行数）。"
        "dx = (g − mean(g) − x̂·mean(g·x̂)) / σ，均值是每个特征在 M 行上求的。"};
    h.stats_not_reset = {
        "Each feature's statistics start where the previous feature's ended: the accumulators (the sum, the mean, "
        "the variance) are declared outside the loop over features and never set back to 0, so only the first "
        "feature is right. Declare them inside the loop.",
        "每个特征的统计量从上一个特征结束的地方开始累加：累加器（和、均值、方差）声明在特征循环外面，从未清零，"
        "所以只有第一个特征是对的。把它们声明在循环里面。"};
    return h;
  }();
  return hints;
}

}  // namespace

Spec batch_norm_spec() {
  Spec s;
  s.exercise = "batch_norm";
  s.cases = column_cases();
  s.reference = [](const Case& c) {
    return value_and_grads(
        [&](const std::vector<Tensor>& t) {
          return batch_norm(t[0], Tensor{}, Tensor{}, t[1], t[2], true, 0.1, c.eps);
        },
        {x_of(c), gamma_of(c), beta_of(c)}, dy_of(c));
  };
  add_catalogue(s, {Norm::batch, batch_norm_hints(), true, true, true});
  s.fd = dx_against_forward();
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_batch_norm(NormForward forward, NormBackward backward, const Options& options) {
  return graded(batch_norm_spec(),
                {{"batch_norm_forward",
                  {"y"},
                  [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), beta_of(c), c.eps)}; }},
                 {"batch_norm_backward",
                  {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps)); }}},
                options);
}

}  // namespace tapegrad::exercise
