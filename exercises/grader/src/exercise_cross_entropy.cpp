// Exercise 12: cross-entropy forward and backward, stable, with ignore_index, the mean over the counted rows.
// Reference: the library's cross_entropy (CrossEntropyOptions, PyTorch's arithmetic); catalogue: the loss and
// its gradient on plain loops with knobs.

#include <cmath>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/loss.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {logits (N, C), targets (N), ignore_index, dL (0-d: 1)}; outputs {loss, dlogits}.
namespace ce_input {
enum : std::size_t { logits, targets, ignore_index, dloss };
}

struct CrossEntropyKnobs {
  bool subtract_max = true;
  bool softmax_via_lse = false;   // p = exp(z − logsumexp(z)): with an overflowed logsumexp, p = 0 (not NaN)
  bool mean_over_counted = true;  // false: divided by N, the ignored rows counted
  bool grad_mean = true;          // false: the gradient without its 1/n
  bool grad_sign_flipped = false; // onehot − softmax
};

Outputs cross_entropy_by_loops(const Case& c, const CrossEntropyKnobs& kn) {
  const Array& z = c.in[ce_input::logits];
  const std::vector<std::int64_t> t = int_list(c.in[ce_input::targets]);
  const std::int64_t ignore = int_list(c.in[ce_input::ignore_index]).at(0);
  const std::size_t N = z.shape()[0], C = z.shape()[1];
  double counted = 0;
  for (std::int64_t ti : t) counted += ti != ignore;
  const double n = kn.mean_over_counted ? counted : double(N);
  double loss = 0;
  Array dz = xt::zeros<double>(z.shape());
  for (std::size_t i = 0; i < N; ++i) {
    if (t[i] == ignore) continue;
    double m = 0, sum = 0;
    if (kn.subtract_max)
      for (std::size_t k = 0; k < C; ++k) m = k == 0 ? z(i, k) : std::max(m, z(i, k));
    for (std::size_t k = 0; k < C; ++k) sum += std::exp(z(i, k) - m);
    loss += m + std::log(sum) - z(i, static_cast<std::size_t>(t[i]));
    const double sign = kn.grad_sign_flipped ? -1.0 : 1.0, per = kn.grad_mean ? 1.0 / n : 1.0;
    for (std::size_t k = 0; k < C; ++k) {
      const double p = kn.softmax_via_lse ? std::exp(z(i, k) - (m + std::log(sum))) : std::exp(z(i, k) - m) / sum;
      dz(i, k) = sign * per * (p - (k == static_cast<std::size_t>(t[i]) ? 1.0 : 0.0));
    }
  }
  return {scalar(loss / n), dz};
}

}  // namespace

Spec cross_entropy_spec() {
  Spec s;
  s.exercise = "cross_entropy";
  Draw d(12);
  auto add_case = [&](Text name, Array z, std::vector<double> targets, double ignore) {
    Case c;
    c.name = std::move(name);
    c.in = {std::move(z), array_of(targets), scalar(ignore), scalar(1.0)};
    s.cases.push_back(c);
  };
  Array example = xt::zeros<double>({2, 3});
  example(0, 0) = 1, example(0, 1) = 2, example(0, 2) = 3, example(1, 0) = example(1, 1) = example(1, 2) = 1;
  add_case({"worked example z = [[1, 2, 3], [1, 1, 1]], t = [2, −100]", "例子 z = [[1, 2, 3], [1, 1, 1]]，t = [2, −100]"},
           example, {2, -100}, -100);
  add_case({"random (4, 5), every target counted", "随机 (4, 5)，每个目标都计入"}, d.normal({4, 5}, 0, 2), {3, 0, 4, 1}, -100);
  add_case({"random (6, 3), two targets −100 (ignored)", "随机 (6, 3)，两个目标是 −100（忽略）"}, d.normal({6, 3}, 0, 2),
           {2, -100, 0, 1, -100, 1}, -100);
  add_case({"ignore_index = 0, a pad id that is also a class (5, 4)", "ignore_index = 0，填充 id 也是一个类别 (5, 4)"},
           d.normal({5, 4}, 0, 2), {0, 3, 0, 2, 1}, 0);
  // exp(1000) is inf: only a log-sum-exp with the max subtracted survives this one
  add_case({"large logits 1000 + 5·randn (3, 4), one ignored", "大 logits 1000 + 5·randn (3, 4)，一个被忽略"},
           d.normal({3, 4}, 1000, 5), {1, -100, 3}, -100);
  add_case({"one row (1, 7)", "只有一行 (1, 7)"}, d.normal({1, 7}), {6}, -100);
  s.reference = [](const Case& c) {
    CrossEntropyOptions options;
    options.ignore_index = int_list(c.in[ce_input::ignore_index]).at(0);
    const std::vector<std::int64_t> targets = int_list(c.in[ce_input::targets]);
    const Outputs o = value_and_grads(
        [&](const std::vector<Tensor>& t) { return cross_entropy(t[0], targets, options); }, {c.in[ce_input::logits]},
        c.in[ce_input::dloss]);
    return Outputs{scalar(o[0].data()[0]), o[1]};
  };
  const std::vector<std::size_t> outputs{1, 1};
  auto wrong = [](CrossEntropyKnobs kn) { return [kn](const Case& c) { return cross_entropy_by_loops(c, kn); }; };
  CrossEntropyKnobs k;
  k.subtract_max = false;
  const Text max_not_subtracted{"The max is not subtracted in the log-sum-exp: exp(z) overflows to inf for logits near 1000, so the "
                    "loss is inf and softmax is inf/inf = NaN (or exp(z − inf) = 0). logsumexp(z) = m + log Σ_c exp(z_c − m), m = max_c z_c; "
                    "and softmax(z) = exp(z − logsumexp(z)).",
                    "log-sum-exp 里没有减去最大值：logits 接近 1000 时 exp(z) 溢出成 inf，于是损失是 inf，softmax 是 inf/inf = NaN（或 exp(z − inf) = 0）。"
                    "logsumexp(z) = m + log Σ_c exp(z_c − m)，m = max_c z_c；softmax(z) = exp(z − logsumexp(z))。"};
  add_in_any_parts(s, "max_not_subtracted", outputs, wrong(k), max_not_subtracted);
  k.softmax_via_lse = true;  // the same slip, the gradient's softmax taken as exp(z − logsumexp(z))
  add_in_any_parts(s, "max_not_subtracted", outputs, wrong(k), max_not_subtracted);
  k = {};
  k.mean_over_counted = false;
  add_in_any_parts(s, "mean_over_all_rows", outputs, wrong(k),
                   {"The mean is over all N rows, the ignored ones included: divide by n, the number of rows whose "
                    "target is not ignore_index (in the loss and in the gradient), as PyTorch does. Dividing by N "
                    "makes the loss smaller the more padding a batch has.",
                    "平均是对全部 N 行求的，把被忽略的行也算进去了：应除以 n，即目标不等于 ignore_index 的行数（损失和梯度都是），"
                    "和 PyTorch 一样。除以 N 的话，一个批次的填充越多，损失越小。"});
  k = {};
  k.grad_mean = false;
  add_in_any_parts(s, "grad_mean_missing", outputs, wrong(k),
                   {"The gradient is n times too large: the 1/n of the mean is missing. L = (1/n) Σ ℓ_i, so "
                    "dL/dz_i = (softmax(z_i) − onehot(t_i)) / n.",
                    "梯度大了 n 倍：少了平均里的 1/n。L = (1/n) Σ ℓ_i，所以 dL/dz_i = (softmax(z_i) − onehot(t_i)) / n。"},
                   {1});
  k = {};
  k.grad_sign_flipped = true;
  add_in_any_parts(s, "gradient_sign_flipped", outputs, wrong(k),
                   {"The gradient has the wrong sign: it is softmax − onehot, not onehot − softmax. Raising the "
                    "target's logit lowers the loss, so its gradient, p_t − 1, is negative.",
                    "梯度的符号反了：是 softmax − onehot，不是 onehot − softmax。提高目标类别的 logit 会降低损失，"
                    "所以它的梯度 p_t − 1 是负的。"},
                   {1});
  s.fd = {0, ce_input::logits, ce_input::dloss, 1};  // dlogits against the learner's own loss
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_cross_entropy(CrossEntropyForward forward, CrossEntropyBackward backward, const Options& options) {
  auto args = [](const Case& c) {
    return std::make_pair(int_list(c.in[ce_input::targets]), int_list(c.in[ce_input::ignore_index]).at(0));
  };
  return graded(cross_entropy_spec(),
                {{"cross_entropy_forward", {"loss"},
                  [=](const Case& c) {
                    const auto [targets, ignore] = args(c);
                    return Outputs{scalar(forward(c.in[ce_input::logits], targets, ignore))};
                  }},
                 {"cross_entropy_backward", {"dlogits"},
                  [=](const Case& c) {
                    const auto [targets, ignore] = args(c);
                    return Outputs{backward(c.in[ce_input::logits], targets, ignore)};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
