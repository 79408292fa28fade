// Exercises 8 and 9: softmax backward over the last axis, and single-head attention backward,
// y = softmax(q kᵀ / √D) v with q (S, D), k (S, D), v (S, Dv). References: the library's softmax and
// scaled_dot_product_attention; catalogue: the backward on plain loops with knobs.

#include <cmath>

#include "grader.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/softmax.hpp"

namespace tapegrad::exercise::detail {

namespace {

// ---- softmax: in = {x, dy}; the learner gets y = softmax(x) and dy ----
namespace softmax_input {
enum : std::size_t { x, dy };
}
enum class SoftmaxSlip { none, diagonal_only, sum_term_missing, wrong_axis };

Array softmax_backward_by_loops(const Array& dy, const Array& y, SoftmaxSlip slip) {
  const std::size_t C = last_dim(y), R = rows_of(y);
  Array dx = xt::zeros<double>(y.shape());
  std::vector<double> dot(slip == SoftmaxSlip::wrong_axis ? C : R, 0.0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c)
      dot[slip == SoftmaxSlip::wrong_axis ? c : r] += dy.data()[r * C + c] * y.data()[r * C + c];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t i = r * C + c;
      const double yi = y.data()[i], g = dy.data()[i];
      switch (slip) {
        case SoftmaxSlip::diagonal_only: dx.data()[i] = yi * (1 - yi) * g; break;
        case SoftmaxSlip::sum_term_missing: dx.data()[i] = yi * g; break;
        case SoftmaxSlip::wrong_axis: dx.data()[i] = yi * (g - dot[c]); break;
        default: dx.data()[i] = yi * (g - dot[r]);
      }
    }
  return dx;
}

// ---- attention: in = {q, k, v, dy} ----
namespace attention_input {
enum : std::size_t { q, k, v, dy };
}
struct AttentionKnobs {
  bool scale_dq = true, scale_dk = true;  // 1/√D in dq, in dk
  bool full_jacobian = true;      // dS = P ⊙ (dP − rowsum(dP ⊙ P)), not P(1 − P) dP
  bool row_sum_term = true;       // false: dS = P ⊙ dP (the − rowsum(dP ⊙ P) left out)
  bool transpose_probs = true;    // dv = Pᵀ dy, not P dy
  bool transpose_scores_grad = true;  // dk = dSᵀ q, not dS q
  bool subtract_max = true;       // P recomputed as exp(s − max)/Σ, not exp(s)/Σ (overflows on large scores)
};

Outputs attention_by_loops(const Case& c, const AttentionKnobs& kn) {
  const Array &q = c.in[attention_input::q], &k = c.in[attention_input::k], &v = c.in[attention_input::v], &dy = c.in[attention_input::dy];
  const std::size_t S = q.shape()[0], Sk = k.shape()[0], D = q.shape()[1], Dv = v.shape()[1];
  const double scale = 1 / std::sqrt(static_cast<double>(D));
  Array P = xt::zeros<double>({S, Sk});
  for (std::size_t i = 0; i < S; ++i) {
    double mx = kn.subtract_max ? -INFINITY : 0.0;
    for (std::size_t j = 0; j < Sk; ++j) {
      double s = 0;
      for (std::size_t d = 0; d < D; ++d) s += q(i, d) * k(j, d);
      P(i, j) = s * scale;
      if (kn.subtract_max) mx = std::max(mx, P(i, j));
    }
    double z = 0;
    for (std::size_t j = 0; j < Sk; ++j) z += (P(i, j) = std::exp(P(i, j) - mx));
    for (std::size_t j = 0; j < Sk; ++j) P(i, j) /= z;
  }
  Array dv = xt::zeros<double>({Sk, Dv}), dP = xt::zeros<double>({S, Sk});
  for (std::size_t i = 0; i < S; ++i)
    for (std::size_t j = 0; j < Sk; ++j) {
      for (std::size_t e = 0; e < Dv; ++e) {
        if (kn.transpose_probs) dv(j, e) += P(i, j) * dy(i, e);
        dP(i, j) += dy(i, e) * v(j, e);
      }
    }
  if (!kn.transpose_probs)  // P dy: only defined when S == Sk
    for (std::size_t j = 0; j < Sk; ++j)
      for (std::size_t e = 0; e < Dv; ++e)
        for (std::size_t i = 0; i < S && j < S; ++i) dv(j, e) += P(j, i) * dy(i, e);
  Array dS = xt::zeros<double>({S, Sk});
  for (std::size_t i = 0; i < S; ++i) {
    double dot = 0;
    for (std::size_t j = 0; j < Sk; ++j) dot += dP(i, j) * P(i, j);
    for (std::size_t j = 0; j < Sk; ++j)
      dS(i, j) = !kn.full_jacobian ? P(i, j) * (1 - P(i, j)) * dP(i, j)
                 : P(i, j) * (dP(i, j) - (kn.row_sum_term ? dot : 0.0));
  }
  const double fq = kn.scale_dq ? scale : 1.0, fk = kn.scale_dk ? scale : 1.0;
  Array dq = xt::zeros<double>({S, D}), dk = xt::zeros<double>({Sk, D});
  for (std::size_t i = 0; i < S; ++i)
    for (std::size_t j = 0; j < Sk; ++j)
      for (std::size_t d = 0; d < D; ++d) {
        dq(i, d) += fq * dS(i, j) * k(j, d);
        // dS q (no transpose): row j of dk from row j of dS, only defined when S == Sk
        if (kn.transpose_scores_grad) dk(j, d) += fk * dS(i, j) * q(i, d);
        else if (i < Sk && j < S) dk(i, d) += fk * dS(i, j) * q(j, d);
      }
  return {dq, dk, dv};
}

}  // namespace

Spec softmax_backward_spec() {
  Spec s;
  s.exercise = "softmax_backward";
  Draw d(8);
  const std::vector<std::pair<Shape, double>> shapes = {{{5}, 1}, {{3, 4}, 1}, {{2, 3, 5}, 2}, {{3, 6}, 8}, {{4, 1}, 1}};
  for (const auto& [shape, spread] : shapes) {
    Case c;
    c.name = {"random " + shape_str(shape) + (spread > 4 ? ", peaked (logits ·8)" : ""),
              "随机 " + shape_str(shape) + (spread > 4 ? "，尖锐分布（logits ·8）" : "")};
    c.in = {d.normal(shape, 0, spread), d.normal(shape)};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    Outputs o = value_and_grads([](const std::vector<Tensor>& t) { return softmax(t[0], -1); }, {c.in[softmax_input::x]}, c.in[softmax_input::dy]);
    return Outputs{o[1]};
  };
  auto add = [&](const std::string& id, SoftmaxSlip slip, Text hint) {
    s.mistakes.push_back({id,
                          [slip](const Case& c) {
                            const Array y = softmax(Tensor(c.in[softmax_input::x]), -1).value();
                            return Outputs{softmax_backward_by_loops(c.in[softmax_input::dy], y, slip)};
                          },
                          std::move(hint), false});
  };
  add("jacobian_diagonal_only", SoftmaxSlip::diagonal_only,
      {"You used only the Jacobian's diagonal, y_i(1 − y_i). Every y_j depends on every x_i (they share the "
       "denominator): ∂y_j/∂x_i = y_j(δ_ij − y_i), so dx = y ⊙ (dy − Σ_j dy_j y_j).",
       "你只用了雅可比矩阵的对角线 y_i(1 − y_i)。每个 y_j 都依赖每个 x_i（它们共用分母）："
       "∂y_j/∂x_i = y_j(δ_ij − y_i)，所以 dx = y ⊙ (dy − Σ_j dy_j y_j)。"});
  add("sum_term_missing", SoftmaxSlip::sum_term_missing,
      {"The − Σ_j dy_j y_j term is missing: dx = y ⊙ dy is the derivative of exp, not of softmax. The "
       "normalisation couples the entries: dx = y ⊙ (dy − Σ_j dy_j y_j).",
       "少了 − Σ_j dy_j y_j 这一项：dx = y ⊙ dy 是 exp 的导数，不是 softmax 的。归一化把各项耦合在一起："
       "dx = y ⊙ (dy − Σ_j dy_j y_j)。"});
  add("wrong_axis", SoftmaxSlip::wrong_axis,
      {"The sum Σ_j dy_j y_j is over the wrong axis: the softmax is over the last axis, so the sum is per row "
       "(over the last axis), once for each row.",
       "Σ_j dy_j y_j 的求和轴错了：softmax 沿最后一个轴，所以每一行沿最后一个轴各求一次和。"});
  return s;
}

Spec attention_backward_spec() {
  Spec s;
  s.exercise = "attention_backward";
  Draw d(9);
  struct Shp {
    std::size_t S, D, Dv;
    double spread;
  };
  // The last: scores in the hundreds (q, k ~ 30·randn), where exp(s) overflows unless the row max is
  // subtracted first, as the forward does.
  for (const Shp& sh : std::vector<Shp>{{3, 4, 4, 1}, {5, 2, 3, 1}, {1, 3, 2, 1}, {4, 8, 5, 3}, {3, 4, 2, 30}}) {
    Case c;
    const bool huge = sh.spread > 10;
    c.name = {"S " + std::to_string(sh.S) + ", D " + std::to_string(sh.D) + ", Dv " + std::to_string(sh.Dv) +
                  (huge ? ", scores in the hundreds (exp overflows)" : sh.spread > 1 ? ", large scores" : ""),
              "S " + std::to_string(sh.S) + "，D " + std::to_string(sh.D) + "，Dv " + std::to_string(sh.Dv) +
                  (huge ? "，分数达数百（exp 会溢出）" : sh.spread > 1 ? "，大分数" : "")};
    c.in = {d.normal({sh.S, sh.D}, 0, sh.spread), d.normal({sh.S, sh.D}, 0, sh.spread), d.normal({sh.S, sh.Dv}),
            d.normal({sh.S, sh.Dv})};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    Outputs o = value_and_grads(
        [](const std::vector<Tensor>& t) { return scaled_dot_product_attention(t[0], t[1], t[2]); },
        {c.in[attention_input::q], c.in[attention_input::k], c.in[attention_input::v]}, c.in[attention_input::dy]);
    return Outputs{o[1], o[2], o[3]};
  };
  auto add = [&](const std::string& id, AttentionKnobs k, Text hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return attention_by_loops(c, k); }, std::move(hint), false});
  };
  const Text scale_missing{
      "The 1/√D is missing from dq or dk (or both): the scores are q kᵀ/√D, so the scale multiplies both of their "
      "gradients: dq = dS k / √D, dk = dSᵀ q / √D.",
      "dq 或 dk（或两者）少了 1/√D：分数是 q kᵀ/√D，所以缩放要乘在两者的梯度上：dq = dS k / √D，dk = dSᵀ q / √D。"};
  AttentionKnobs k;
  k.scale_dq = k.scale_dk = false;
  add("scale_missing", k, scale_missing);
  k = {};
  k.scale_dq = false;
  add("scale_missing", k, scale_missing);
  k = {};
  k.scale_dk = false;
  add("scale_missing", k, scale_missing);
  k = {};
  k.full_jacobian = false;
  add("softmax_jacobian_diagonal_only", k,
      {"The softmax's backward uses only the diagonal P(1 − P): each row's probabilities share a denominator, "
       "so dS = P ⊙ (dP − rowsum(dP ⊙ P)).",
       "softmax 的反向只用了对角线 P(1 − P)：每一行的概率共用分母，所以 dS = P ⊙ (dP − rowsum(dP ⊙ P))。"});
  k = {};
  k.row_sum_term = false;
  add("softmax_row_sum_missing", k,
      {"The softmax's backward lacks its row-sum term: dS = P ⊙ dP is the derivative of exp alone. Each row's "
       "probabilities share a denominator, so dS = P ⊙ (dP − rowsum(dP ⊙ P)).",
       "softmax 的反向少了按行求和的那一项：dS = P ⊙ dP 只是 exp 的导数。每一行的概率共用分母，"
       "所以 dS = P ⊙ (dP − rowsum(dP ⊙ P))。"});
  k = {};
  k.transpose_scores_grad = false;
  add("dk_not_transposed", k,
      {"dk = dS q, but S = q kᵀ/√D gives dk = dSᵀ q / √D: key j collects column j of dS (every query's score "
       "against it), not row j.",
       "dk = dS q，但 S = q kᵀ/√D 给出 dk = dSᵀ q / √D：第 j 个 key 收集 dS 的第 j 列（所有 query 对它的分数），"
       "而不是第 j 行。"});
  k = {};
  k.subtract_max = false;
  add("max_not_subtracted", k,
      {"P is recomputed as exp(s) / Σ exp(s) without subtracting the row's max first: with scores in the hundreds "
       "exp overflows to inf and P becomes inf/inf = NaN. Subtract the max of each row before exp, as the forward "
       "does: P = exp(s − max(s)) / Σ exp(s − max(s)), the same value without overflow.",
       "重新计算 P 时没有先减去每行的最大值：exp(s) / Σ exp(s) 在分数达数百时 exp 溢出为 inf，P 变成 inf/inf = NaN。"
       "像前向那样先减去每行的最大值：P = exp(s − max(s)) / Σ exp(s − max(s))，值相同且不会溢出。"});
  k = {};
  k.transpose_probs = false;
  add("probs_not_transposed", k,
      {"dv = P dy, but y = P v gives dv = Pᵀ dy: key j collects the gradient of every query that attended to "
       "it (column j of P).",
       "dv = P dy，但 y = P v 给出 dv = Pᵀ dy：第 j 个 key 收集所有关注它的 query 的梯度（P 的第 j 列）。"});
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_softmax_backward(SoftmaxBackward backward, const Options& options) {
  return graded(softmax_backward_spec(),
                {{"softmax_backward", {"dx"},
                  [=](const Case& c) {
                    // the learner gets y = softmax(x), computed by the library
                    Outputs o = value_and_grads([](const std::vector<Tensor>& t) { return softmax(t[0], -1); },
                                                {c.in[softmax_input::x]}, c.in[softmax_input::dy]);
                    return Outputs{backward(c.in[softmax_input::dy], o[0])};
                  }}},
                options);
}

Report check_attention_backward(AttentionBackward backward, const Options& options) {
  return graded(attention_backward_spec(),
                {{"attention_backward", {"dq", "dk", "dv"},
                  [=](const Case& c) {
                    const AttentionGrads g = backward(c.in[attention_input::dy], c.in[attention_input::q], c.in[attention_input::k], c.in[attention_input::v]);
                    return Outputs{g.dq, g.dk, g.dv};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
