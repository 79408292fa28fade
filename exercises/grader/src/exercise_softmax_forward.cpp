// Exercise 11: softmax forward over the last axis, the safe form and the online (one-pass) form. Reference: the
// library's softmax; catalogue: softmax written with the slips below.

#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/softmax.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x}; outputs {safe y, online y}.
enum class SoftmaxForwardSlip { max_not_subtracted, sum_over_first_axis, softmax_over_first_axis, rescale_missing };

// Per row of the last axis, as a learner's loops (the rescale slip only in the online form's running sum).
Array softmax_rows(const Array& x, SoftmaxForwardSlip slip) {
  const std::size_t N = last_dim(x), R = rows_of(x);
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < R; ++r) {
    const double* xr = x.data() + r * N;
    double m = slip == SoftmaxForwardSlip::max_not_subtracted ? 0.0 : -INFINITY, d = 0;
    for (std::size_t j = 0; j < N; ++j) {
      if (slip == SoftmaxForwardSlip::max_not_subtracted) {
        d += std::exp(xr[j]);
        continue;
      }
      const double m_new = std::max(m, xr[j]);
      d = (slip == SoftmaxForwardSlip::rescale_missing ? d : d * std::exp(m - m_new)) + std::exp(xr[j] - m_new);
      m = m_new;
    }
    for (std::size_t j = 0; j < N; ++j) y.data()[r * N + j] = std::exp(xr[j] - m) / d;
  }
  return y;
}

// The max over `max_axis`, the sum over `sum_axis` (one of them the wrong one).
Array softmax_axes(const Array& x, std::size_t max_axis, std::size_t sum_axis) {
  const Array m = xt::amax(x, {max_axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  const Array e = xt::exp(x - m);
  const Array s = xt::sum(e, {sum_axis}, xt::keep_dims | xt::evaluation_strategy::immediate);
  return e / s;
}

}  // namespace

Spec softmax_spec() {
  Spec s;
  s.exercise = "softmax";
  Draw d(11);
  auto add_case = [&](Text name, Array x) {
    Case c;
    c.name = std::move(name);
    c.in = {std::move(x)};
    s.cases.push_back(c);
  };
  add_case({"worked example x = [1, 2, 3]", "例子 x = [1, 2, 3]"}, array_of({1, 2, 3}));
  for (const Shape& shape : std::vector<Shape>{{5}, {3, 4}, {2, 3, 5}})
    add_case({"random " + shape_str(shape), "随机 " + shape_str(shape)}, d.normal(shape, 0, 2));
  // exp(1000) is inf: only a softmax with the max subtracted survives this one
  add_case({"large scores 1000 + 3·randn (3, 6)", "大分数 1000 + 3·randn (3, 6)"}, d.normal({3, 6}, 1000, 3));
  // a rising row moves the running max at every step: the online form's rescale matters most
  Array rising = d.normal({4, 7}, 0, 0.3);
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t j = 0; j < 7; ++j) rising(r, j) += 1.5 * double(j);
  add_case({"rising rows (4, 7): the max changes at every step", "递增的行 (4, 7)：最大值每一步都在变"}, rising);
  add_case({"one column (4, 1): y = 1", "只有一列 (4, 1)：y = 1"}, d.normal({4, 1}));
  s.reference = [](const Case& c) {
    const Array y = softmax(Tensor(c.in[0]), -1).value();
    return Outputs{y, y};
  };
  const std::vector<std::size_t> outputs{1, 1};
  add_in_any_parts(
      s, "max_not_subtracted", outputs,
      [](const Case& c) {
        const Array y = softmax_rows(c.in[0], SoftmaxForwardSlip::max_not_subtracted);
        return Outputs{y, y};
      },
      {"The max is not subtracted: exp(x) overflows to inf for scores near 1000 (exp(710) already does), and "
       "inf/inf is NaN. Subtract each row's max m first: exp(x − m) ≤ 1, and softmax(x − m) = softmax(x).",
       "没有减去最大值：分数接近 1000 时 exp(x) 溢出成 inf（exp(710) 就已经溢出），inf/inf 是 NaN。先减去每行的最大值 m："
       "exp(x − m) ≤ 1，而且 softmax(x − m) = softmax(x)。"});
  const Text wrong_axis{
      "The sum (or the max) is over the wrong axis, the first one: softmax normalises each row of the LAST axis, so "
      "reduce over axis x.dimension() − 1 (keep_dims), once per row.",
      "求和（或求最大值）的轴错了，用了第一个轴：softmax 对最后一个轴的每一行归一化，所以要沿 x.dimension() − 1 轴"
      "（keep_dims）归约，每行一次。"};
  add_in_any_parts(
      s, "wrong_axis", outputs,
      [](const Case& c) {
        const Array y = softmax_axes(c.in[0], c.in[0].dimension() - 1, 0);
        return Outputs{y, y};
      },
      wrong_axis);
  add_in_any_parts(
      s, "wrong_axis", outputs,
      [](const Case& c) {
        const Array y = softmax_axes(c.in[0], 0, 0);
        return Outputs{y, y};
      },
      wrong_axis);
  add_in_any_parts(
      s, "rescale_missing", outputs,
      [](const Case& c) {
        const Array y = softmax_rows(c.in[0], SoftmaxForwardSlip::rescale_missing);
        return Outputs{y, y};
      },
      {"The online form does not rescale its running sum when the max grows: d was summed relative to the old "
       "max m, so when m_new > m it must become d · exp(m − m_new) before exp(x_j − m_new) is added.",
       "在线形式在最大值变大时没有重新缩放累计的和：d 是相对旧的最大值 m 累加的，所以当 m_new > m 时，先把 d 变成 "
       "d · exp(m − m_new)，再加上 exp(x_j − m_new)。"},
      {1});
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_softmax(SoftmaxForward safe, SoftmaxForward online, const Options& options) {
  return graded(softmax_spec(),
                {{"softmax_forward", {"y"}, [=](const Case& c) { return Outputs{safe(c.in[0])}; }},
                 {"softmax_online_forward", {"y (online)"}, [=](const Case& c) { return Outputs{online(c.in[0])}; }}},
                options);
}

}  // namespace tapegrad::exercise
