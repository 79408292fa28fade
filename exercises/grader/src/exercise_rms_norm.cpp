// Exercise 4: RMSNorm forward and backward. The reference is the library's rms_norm; the catalogue is
// norm_catalogue.cpp's, with LayerNorm's hints where RMSNorm's formula is the same and its own where it
// differs (no mean, rms = sqrt(mean(x²) + ε)).

#include "norm_catalogue.hpp"
#include "tapegrad/ops/normalization.hpp"

namespace tapegrad::exercise::detail {

namespace {

// RMSNorm's hints: LayerNorm's, with RMSNorm's own formula where it differs.
const NormHints& rms_norm_hints() {
  static const NormHints hints = [] {
    NormHints h = layer_norm_hints();
    h.eps_outside_sqrt = {
        "You divided by (rms + ε) instead of rms = sqrt(mean(x²) + ε). ε belongs under the square root: with "
        "mean(x²) = 1 and ε = 0.1 (the case with eps = 0.1) x/rms is 0.953·x, x/(1 + ε) is 0.909·x.",
        "你除以的是 (rms + ε)，而不是 rms = sqrt(mean(x²) + ε)。ε 应该放在根号里：mean(x²) = 1、ε = 0.1 时"
        "（eps = 0.1 的用例），x/rms 是 0.953·x，x/(1 + ε) 是 0.909·x。"};
    h.affine_missing = {
        "γ is ignored: the output is x/rms instead of γ·x/rms. Tests with γ = 1 (how the layer starts) cannot see "
        "this; these cases use γ that is not 1. (RMSNorm has no β.)",
        "γ 被忽略了：输出是 x/rms 而不是 γ·x/rms。γ = 1（层的初始值）的测试看不出这个错误；这些用例里 γ 不是 1。"
        "（RMSNorm 没有 β。）"};
    h.eps_missing = {
        "ε is missing: you divided by sqrt(mean(x²)). A row of zeros gives 0/0 = NaN; ε keeps the division finite: "
        "rms = sqrt(mean(x²) + ε).",
        "漏了 ε：你除以的是 sqrt(mean(x²))。全零的行会得到 0/0 = NaN；ε 让除法保持有限：rms = sqrt(mean(x²) + ε)。"};
    h.projection_term_missing = {
        "rms was treated as a constant: the − x̂·mean(g·x̂) term of dx is missing (g = γ·dy, x̂ = x/rms). Every x_i "
        "moves rms too: dx = (g − x̂·mean(g·x̂)) / rms. RMSNorm subtracts no mean, so there is no − mean(g) term.",
        "把 rms 当成了常数：dx 少了 − x̂·mean(g·x̂) 这一项（g = γ·dy，x̂ = x/rms）。每个 x_i 也会改变 rms："
        "dx = (g − x̂·mean(g·x̂)) / rms。RMSNorm 不减均值，所以没有 − mean(g) 这一项。"};
    h.grads_not_summed = {
        "dγ was not summed over the rows: it has x's shape instead of γ's. γ is shared by every row, so "
        "dγ = Σ_rows dy·x̂ with x̂ = x/rms. A single row hides this.",
        "dγ 没有对所有行求和：它的形状是 x 的，而不是 γ 的。γ 被每一行共用，所以 dγ = Σ_行 dy·x̂，其中 x̂ = x/rms。"
        "只有一行的测试看不出这个错误。"};
    h.dgamma_uses_x = {
        "dγ was computed from x instead of x̂. γ multiplies x̂ = x/rms, so dγ = Σ_rows dy·x̂ with "
        "rms = sqrt(mean(x²) + ε).",
        "dγ 用的是 x 而不是 x̂。γ 乘的是 x̂ = x/rms，所以 dγ = Σ_行 dy·x̂，其中 rms = sqrt(mean(x²) + ε)。"};
    h.wrong_scale = {
        "dx has the right form but the wrong scale: you divided by rms² (or multiplied by rms) instead of dividing "
        "by rms = sqrt(mean(x²) + ε): dx = (g − x̂·mean(g·x̂)) / rms.",
        "dx 的形式对，但比例错了：你除以了 rms²（或乘了 rms），而应该除以 rms = sqrt(mean(x²) + ε)："
        "dx = (g − x̂·mean(g·x̂)) / rms。"};
    h.sum_instead_of_mean = {
        "A sum where a mean belongs: the Σ(g·x̂) term of dx misses its 1/N (g = γ·dy, x̂ = x/rms): "
        "dx = (g − x̂·mean(g·x̂)) / rms with the mean over the N features of the row.",
        "该用均值的地方用了求和：dx 里的 Σ(g·x̂) 少了 1/N（g = γ·dy，x̂ = x/rms）：dx = (g − x̂·mean(g·x̂)) / rms，"
        "均值是对这一行的 N 个特征求的。"};
    h.sigma_division_missing = {
        "The final division by rms is missing: you returned g − x̂·mean(g·x̂), and dx is that divided by "
        "rms = sqrt(mean(x²) + ε).",
        "漏了最后除以 rms：你返回的是 g − x̂·mean(g·x̂)，而 dx 还要再除以 rms = sqrt(mean(x²) + ε)。"};
    h.projection_sign_flipped = {
        "The projection term has the wrong sign: dx = (g − x̂·mean(g·x̂)) / rms, minus x̂·mean(g·x̂) "
        "(g = γ·dy, x̂ = x/rms): rms grows with every |x_i|, which makes every |x̂| smaller.",
        "投影项的符号反了：dx = (g − x̂·mean(g·x̂)) / rms，是减去 x̂·mean(g·x̂)（g = γ·dy，x̂ = x/rms）："
        "任何 |x_i| 变大都会让 rms 变大、所有 |x̂| 变小。"};
    h.stats_not_reset = {
        "Each row's mean of x² starts where the previous row's ended: the accumulator is declared outside the loop "
        "over rows and never set back to 0, so only the first row is right. Declare it inside the loop.",
        "每一行的 mean(x²) 从上一行结束的地方开始累加：累加器声明在行循环外面，从未清零，所以只有第一行是对的。"
        "把它声明在循环里面。"};
    return h;
  }();
  return hints;
}

}  // namespace

Spec rms_norm_spec() {
  Spec s;
  s.exercise = "rms_norm";
  s.cases = row_cases();
  s.reference = [](const Case& c) {
    const std::size_t n = last_dim(x_of(c));
    return value_and_grads([&](const std::vector<Tensor>& t) { return rms_norm(t[0], {n}, t[1], c.eps); },
                           {x_of(c), gamma_of(c)}, dy_of(c));  // y, dx, dgamma
  };
  add_catalogue(s, {Norm::rms, rms_norm_hints(), true, true, false});
  s.fd = dx_against_forward();
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_rms_norm(RmsForward forward, NormBackward backward, const Options& options) {
  return graded(
      rms_norm_spec(),
      {{"rms_norm_forward", {"y"}, [=](const Case& c) { return Outputs{forward(x_of(c), gamma_of(c), c.eps)}; }},
       {"rms_norm_backward",
        {"dx", "dgamma"},
        [=](const Case& c) { return norm_grads(backward(dy_of(c), x_of(c), gamma_of(c), c.eps), false); }}},
      options);
}

}  // namespace tapegrad::exercise
