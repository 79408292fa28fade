// Exercises 13 and 14: multi-head attention forward and backward with the causal and padding masks, on
// q, k, v (B, S, d) split into H heads of Dh = d / H. Reference: the library's scaled_dot_product_attention on
// the heads (B, H, S, Dh) with a boolean mask; catalogue: attention per head on plain loops with knobs.

#include <cmath>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/attention.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {q, k, v, dy (each B, S, d), heads, causal (0/1), lengths (B)}
namespace mha_input {
enum : std::size_t { q, k, v, dy, heads, causal, lengths };
}

// What a row with no visible key gives, in the wrong code that makes one (a reversed causal mask with padding):
// softmax of all −∞ (NaN), zeros, the softmax over every key (an additive −1e9 shifts them all alike), uniform
// (a −∞ stand-in so large that the scores vanish beside it).
enum class EmptyRow { nan, zero, all_keys, uniform };
enum class MaskWay { before_softmax, after_softmax, multiplied };

struct MhaKnobs {
  double scale_power = 0.5;  // scores / Dh^p: 1 is "by d"
  MaskWay mask = MaskWay::before_softmax;
  bool causal_reversed = false;
  EmptyRow empty_row = EmptyRow::zero;
  bool split_transposed = true;  // false: (B, S, d) reshaped to (B, H, S, Dh) without the transpose
  bool subtract_max = true;
  // the backward's
  bool dq_scaled = true, dk_scaled = true;
  bool rowsum_term = true;  // dS = P ⊙ (dP − rowsum(dP ⊙ P)); false: P ⊙ dP
  bool dk_transposed = false;  // dk = dS q instead of dSᵀ q
};

// Head h of batch b as (S, Dh) rows: features h·Dh.. of each position (the transpose), or the slab's
// (h·S + i)-th run of Dh numbers (a reshape without it).
double& at_head(Array& x, std::size_t b, std::size_t h, std::size_t i, std::size_t e, std::size_t S, std::size_t Dh,
                bool transposed) {
  const std::size_t d = x.shape()[2];
  return transposed ? x(b, i, h * Dh + e) : x.data()[b * S * d + (h * S + i) * Dh + e];
}

// Every output of both exercises: {y, dq, dk, dv}.
Outputs mha_by_loops(const Case& c, const MhaKnobs& kn) {
  Array q = c.in[mha_input::q], k = c.in[mha_input::k], v = c.in[mha_input::v], dy = c.in[mha_input::dy];
  const std::size_t B = q.shape()[0], S = q.shape()[1], d = q.shape()[2];
  const std::size_t H = size_list(c.in[mha_input::heads]).at(0), Dh = d / H;
  const bool causal = c.in[mha_input::causal]() != 0;
  const std::vector<std::size_t> lengths = size_list(c.in[mha_input::lengths]);
  const double scale = 1.0 / std::pow(double(Dh), kn.scale_power);
  Array y = xt::zeros<double>(q.shape()), dq = xt::zeros<double>(q.shape()), dk = xt::zeros<double>(q.shape()),
        dv = xt::zeros<double>(q.shape());
  const bool tr = kn.split_transposed;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      auto Q = [&](std::size_t i, std::size_t e) -> double& { return at_head(q, b, h, i, e, S, Dh, tr); };
      auto K = [&](std::size_t i, std::size_t e) -> double& { return at_head(k, b, h, i, e, S, Dh, tr); };
      auto V = [&](std::size_t i, std::size_t e) -> double& { return at_head(v, b, h, i, e, S, Dh, tr); };
      auto DY = [&](std::size_t i, std::size_t e) -> double& { return at_head(dy, b, h, i, e, S, Dh, tr); };
      Array P = xt::zeros<double>({S, S});
      for (std::size_t i = 0; i < S; ++i) {
        std::vector<double> s(S);
        std::vector<bool> allowed(S);
        bool any = false;
        for (std::size_t j = 0; j < S; ++j) {
          double dot = 0;
          for (std::size_t e = 0; e < Dh; ++e) dot += Q(i, e) * K(j, e);
          s[j] = dot * scale;
          allowed[j] = (!causal || (kn.causal_reversed ? j >= i : j <= i)) && j < lengths[b];
          any |= allowed[j];
        }
        const bool masked_before = kn.mask == MaskWay::before_softmax;
        if (masked_before && !any && kn.empty_row != EmptyRow::all_keys) {
          for (std::size_t j = 0; j < S; ++j)
            P(i, j) = kn.empty_row == EmptyRow::nan ? NAN : kn.empty_row == EmptyRow::uniform ? 1.0 / double(S) : 0.0;
          continue;
        }
        for (std::size_t j = 0; j < S; ++j) {
          if (kn.mask == MaskWay::multiplied && !allowed[j]) s[j] = 0;
          if (masked_before && any && !allowed[j]) s[j] = -INFINITY;
        }
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) m = std::max(m, s[j]);
        if (!kn.subtract_max) m = 0;
        for (std::size_t j = 0; j < S; ++j) z += P(i, j) = std::exp(s[j] - m);
        for (std::size_t j = 0; j < S; ++j) {
          P(i, j) /= z;
          if (kn.mask == MaskWay::after_softmax && !allowed[j]) P(i, j) = 0;
        }
      }
      for (std::size_t i = 0; i < S; ++i) {
        std::vector<double> dP(S, 0.0);
        double dot = 0;
        for (std::size_t j = 0; j < S; ++j) {
          for (std::size_t e = 0; e < Dh; ++e) {
            at_head(y, b, h, i, e, S, Dh, tr) += P(i, j) * V(j, e);
            at_head(dv, b, h, j, e, S, Dh, tr) += P(i, j) * DY(i, e);
            dP[j] += DY(i, e) * V(j, e);
          }
          dot += dP[j] * P(i, j);
        }
        for (std::size_t j = 0; j < S; ++j) {
          const double dS = kn.rowsum_term ? P(i, j) * (dP[j] - dot) : P(i, j) * dP[j];
          for (std::size_t e = 0; e < Dh; ++e) {
            at_head(dq, b, h, i, e, S, Dh, tr) += dS * K(j, e) * (kn.dq_scaled ? scale : 1.0);
            if (kn.dk_transposed) at_head(dk, b, h, i, e, S, Dh, tr) += dS * Q(j, e) * (kn.dk_scaled ? scale : 1.0);
            else at_head(dk, b, h, j, e, S, Dh, tr) += dS * Q(i, e) * (kn.dk_scaled ? scale : 1.0);
          }
        }
      }
    }
  return {y, dq, dk, dv};
}

// (B, S, d) <-> (B, H, S, Dh), the heads split with the transpose (and merged back).
Array split_heads(const Array& x, std::size_t H) {
  const std::size_t B = x.shape()[0], S = x.shape()[1], Dh = x.shape()[2] / H;
  Array out = xt::zeros<double>({B, H, S, Dh});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < S; ++i)
        for (std::size_t e = 0; e < Dh; ++e) out(b, h, i, e) = x(b, i, h * Dh + e);
  return out;
}
Array merge_heads(const Array& x) {
  const std::size_t B = x.shape()[0], H = x.shape()[1], S = x.shape()[2], Dh = x.shape()[3];
  Array out = xt::zeros<double>({B, S, H * Dh});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < S; ++i)
        for (std::size_t e = 0; e < Dh; ++e) out(b, i, h * Dh + e) = x(b, h, i, e);
  return out;
}

// The library's attention on the heads: {y, dq, dk, dv}, merged back to (B, S, d).
Outputs mha_reference(const Case& c) {
  const std::size_t H = size_list(c.in[mha_input::heads]).at(0);
  const std::size_t B = c.in[mha_input::q].shape()[0], S = c.in[mha_input::q].shape()[1];
  const bool causal = c.in[mha_input::causal]() != 0;
  const std::vector<std::size_t> lengths = size_list(c.in[mha_input::lengths]);
  Array allowed = xt::zeros<double>({B, std::size_t(1), S, S});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < S; ++i)
      for (std::size_t j = 0; j < S; ++j) allowed(b, 0, i, j) = (!causal || j <= i) && j < lengths[b] ? 1.0 : 0.0;
  const AttentionMask mask = AttentionMask::boolean(allowed);
  const Outputs o = value_and_grads(
      [&](const std::vector<Tensor>& t) { return scaled_dot_product_attention(t[0], t[1], t[2], mask); },
      {split_heads(c.in[mha_input::q], H), split_heads(c.in[mha_input::k], H), split_heads(c.in[mha_input::v], H)},
      split_heads(c.in[mha_input::dy], H));
  return {merge_heads(o[0]), merge_heads(o[1]), merge_heads(o[2]), merge_heads(o[3])};
}

struct MhaShape {
  std::size_t B, S, d, H;
  bool causal;
  std::vector<double> lengths;
  double spread;
  Text what;
};

std::vector<Case> mha_cases() {
  Draw draw(13);
  std::vector<Case> cases;
  {  // the worked example of the skeletons
    Case c;
    c.name = {"worked example B 1, S 2, d 2, H 1, causal", "例子 B 1，S 2，d 2，H 1，因果"};
    Array eye = xt::zeros<double>({1, 2, 2});
    eye(0, 0, 0) = eye(0, 1, 1) = 1;
    Array v = xt::zeros<double>({1, 2, 2});
    v(0, 0, 0) = 1, v(0, 0, 1) = 2, v(0, 1, 0) = 3, v(0, 1, 1) = 4;
    c.in = {eye, eye, v, eye, scalar(1), scalar(1), array_of({2})};
    cases.push_back(c);
  }
  const std::vector<MhaShape> shapes = {
      {2, 4, 6, 2, false, {4, 4}, 1, {"no mask", "无掩码"}},
      {1, 5, 8, 2, true, {5}, 1, {"causal", "因果"}},
      {2, 5, 4, 2, false, {5, 3}, 1, {"padding, lengths [5, 3]", "填充，lengths [5, 3]"}},
      {2, 4, 6, 3, true, {2, 4}, 1, {"causal and padding, lengths [2, 4]", "因果加填充，lengths [2, 4]"}},
      {1, 4, 8, 2, true, {4}, 30, {"causal, large scores (q, k ·30)", "因果，大分数（q、k ·30）"}},
  };
  for (const MhaShape& sh : shapes) {
    Case c;
    const std::string dims = "B " + std::to_string(sh.B) + ", S " + std::to_string(sh.S) + ", d " +
                             std::to_string(sh.d) + ", H " + std::to_string(sh.H);
    const std::string dims_zh = "B " + std::to_string(sh.B) + "，S " + std::to_string(sh.S) + "，d " +
                                std::to_string(sh.d) + "，H " + std::to_string(sh.H);
    c.name = {dims + ", " + sh.what.en, dims_zh + "，" + sh.what.zh};
    const Shape shape{sh.B, sh.S, sh.d};
    c.in = {draw.normal(shape, 0, sh.spread), draw.normal(shape, 0, sh.spread), draw.normal(shape), draw.normal(shape),
            scalar(double(sh.H)), scalar(sh.causal ? 1 : 0), array_of(sh.lengths)};
    cases.push_back(c);
  }
  return cases;
}

// The forward's {y} or the backward's {dq, dk, dv} of the loops.
Runner forward_of(MhaKnobs kn) {
  return [kn](const Case& c) { return Outputs{mha_by_loops(c, kn).at(0)}; };
}
Runner backward_of(MhaKnobs kn) {
  return [kn](const Case& c) {
    Outputs o = mha_by_loops(c, kn);
    return Outputs{o[1], o[2], o[3]};
  };
}

const Text max_not_subtracted_hint{
    "P is computed without subtracting each row's max: with large scores exp overflows to inf and the row becomes "
    "NaN. Subtract the row's max (over the visible keys) before exp: softmax(s − m) = softmax(s).",
    "计算 P 时没有减去每行的最大值：分数大时 exp 溢出成 inf，这一行变成 NaN。exp 之前减去这一行（可见 key 上）的最大值："
    "softmax(s − m) = softmax(s)。"};

}  // namespace

Spec multi_head_attention_spec() {
  Spec s;
  s.exercise = "multi_head_attention";
  s.cases = mha_cases();
  s.reference = [](const Case& c) { return Outputs{mha_reference(c).at(0)}; };
  auto add = [&](const std::string& id, MhaKnobs kn, const Text& hint) {
    s.mistakes.push_back({id, forward_of(kn), hint, false});
  };
  MhaKnobs k;
  k.scale_power = 1;
  add("scale_by_d", k,
      {"The scores are divided by Dh, not √Dh: q·k is a sum of Dh products, its spread grows as √Dh, so q kᵀ / √Dh "
       "keeps the softmax's input of order 1. Dividing by Dh flattens the attention.",
       "分数除以了 Dh 而不是 √Dh：q·k 是 Dh 个乘积的和，它的标准差按 √Dh 增长，所以 q kᵀ / √Dh 让 softmax 的输入保持在 1 "
       "的量级。除以 Dh 会让注意力变得过于平坦。"});
  k = {};
  k.mask = MaskWay::after_softmax;
  add("mask_after_softmax", k,
      {"The mask is applied after the softmax: the masked keys' probabilities are zeroed, so each row no longer sums "
       "to 1 (the visible keys keep the share the masked ones took). Set the masked scores to −∞ BEFORE the softmax.",
       "掩码加在了 softmax 之后：被掩掉的 key 的概率被置 0，于是每行的和不再是 1（可见的 key 没有分到被掩掉的那部分）。"
       "应在 softmax 之前把被掩掉的分数设为 −∞。"});
  k = {};
  k.mask = MaskWay::multiplied;
  add("mask_multiplied", k,
      {"The mask is multiplied into the scores (scores · mask): a masked score becomes 0, and exp(0) still gives that "
       "key weight. The mask must make it −∞ (scores + (mask ? 0 : −∞), or masked_fill), so that exp gives 0.",
       "掩码被乘进了分数（scores · mask）：被掩掉的分数变成 0，而 exp(0) 仍然给这个 key 权重。掩码要把它变成 −∞"
       "（scores + (mask ? 0 : −∞)，或 masked_fill），这样 exp 才给出 0。"});
  k = {};
  k.causal_reversed = true;
  const Text reversed{
      "The causal mask is reversed: query i sees the keys j ≥ i (the future), not j ≤ i. The allowed part is the "
      "lower triangle, tril: key j is visible to query i when j ≤ i.",
      "因果掩码反了：query i 看到的是 j ≥ i 的 key（未来），而不是 j ≤ i。允许的部分是下三角 tril：当 j ≤ i 时 key j 对 "
      "query i 可见。"};
  for (EmptyRow e : {EmptyRow::zero, EmptyRow::nan, EmptyRow::all_keys, EmptyRow::uniform}) {
    k.empty_row = e;
    add("causal_mask_reversed", k, reversed);
  }
  k = {};
  k.split_transposed = false;
  add("heads_split_without_transpose", k,
      {"The heads are split by a reshape alone, (B, S, d) -> (B, H, S, Dh): that cuts the memory of all positions "
       "into H runs, mixing positions and features. Reshape to (B, S, H, Dh) first, then transpose to (B, H, S, Dh): "
       "head h is features h·Dh .. h·Dh + Dh − 1 of every position (and back the same way).",
       "多头只用 reshape 拆分：(B, S, d) -> (B, H, S, Dh) 把所有位置的内存切成 H 段，把位置和特征混在一起了。应先 reshape "
       "成 (B, S, H, Dh)，再转置为 (B, H, S, Dh)：第 h 个头是每个位置的第 h·Dh .. h·Dh + Dh − 1 个特征（合并时反过来）。"});
  k = {};
  k.subtract_max = false;
  add("max_not_subtracted", k, max_not_subtracted_hint);
  return s;
}

Spec multi_head_attention_backward_spec() {
  Spec s;
  s.exercise = "multi_head_attention_backward";
  s.cases = mha_cases();
  s.reference = [](const Case& c) {
    Outputs o = mha_reference(c);
    return Outputs{o[1], o[2], o[3]};
  };
  const Text scale_missing{
      "The 1/√Dh is missing in dq or dk (or both): the scores are q kᵀ / √Dh, so the scale multiplies both their "
      "gradients: dq = dS k / √Dh, dk = dSᵀ q / √Dh.",
      "dq 或 dk（或两者）少了 1/√Dh：分数是 q kᵀ / √Dh，所以缩放也乘在两者的梯度上：dq = dS k / √Dh，dk = dSᵀ q / √Dh。"};
  auto add = [&](const std::string& id, MhaKnobs kn, const Text& hint) {
    s.mistakes.push_back({id, backward_of(kn), hint, false});
  };
  MhaKnobs k;
  k.dq_scaled = false;
  add("scale_missing", k, scale_missing);
  k = {};
  k.dk_scaled = false;
  add("scale_missing", k, scale_missing);
  k.dq_scaled = false;
  add("scale_missing", k, scale_missing);
  k = {};
  k.rowsum_term = false;
  add("softmax_row_sum_missing", k,
      {"The softmax's backward has no row-sum term: dS = P ⊙ dP is the derivative of exp only. Each row's "
       "probabilities share a denominator, so dS = P ⊙ (dP − rowsum(dP ⊙ P)).",
       "softmax 的反向少了行和那一项：dS = P ⊙ dP 只是 exp 的导数。每一行的概率共用分母，所以 dS = P ⊙ (dP − rowsum(dP ⊙ P))。"});
  k = {};
  k.dk_transposed = true;
  add("dk_not_transposed", k,
      {"dk is computed with dS where dSᵀ belongs: key j collects the gradient of every query i that looked at it, "
       "column j of dS: dk = dSᵀ q / √Dh (dk_j = Σ_i dS_ij q_i / √Dh), not dS q.",
       "dk 用了 dS，而应该用 dSᵀ：key j 收集所有看过它的 query i 的梯度，即 dS 的第 j 列：dk = dSᵀ q / √Dh"
       "（dk_j = Σ_i dS_ij q_i / √Dh），不是 dS q。"});
  k = {};
  k.subtract_max = false;
  add("max_not_subtracted", k, max_not_subtracted_hint);
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_multi_head_attention(MultiHeadAttentionForward forward, const Options& options) {
  return graded(multi_head_attention_spec(),
                {{"multi_head_attention_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[mha_input::q], c.in[mha_input::k], c.in[mha_input::v],
                                           size_list(c.in[mha_input::heads]).at(0), c.in[mha_input::causal]() != 0,
                                           size_list(c.in[mha_input::lengths]))};
                  }}},
                options);
}

Report check_multi_head_attention_backward(MultiHeadAttentionBackward backward, const Options& options) {
  return graded(multi_head_attention_backward_spec(),
                {{"multi_head_attention_backward", {"dq", "dk", "dv"},
                  [=](const Case& c) {
                    const AttentionGrads g =
                        backward(c.in[mha_input::dy], c.in[mha_input::q], c.in[mha_input::k], c.in[mha_input::v],
                                 size_list(c.in[mha_input::heads]).at(0), c.in[mha_input::causal]() != 0,
                                 size_list(c.in[mha_input::lengths]));
                    return Outputs{g.dq, g.dk, g.dv};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
