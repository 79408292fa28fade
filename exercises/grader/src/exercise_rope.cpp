// Exercise 16: RoPE forward and backward in the style the learner picks (interleaved or half_split): each style
// the learner's functions implement (its calls do not throw NotImplemented) is graded. Reference: the library's
// rotary_embedding; catalogue: the rotation on plain loops with knobs, among them the other style's pairing.

#include <cmath>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/rotary_embedding.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x (..., S, D), dy (the shape of x), positions (S), style (0 interleaved, 1 half_split), base}
namespace rope_input {
enum : std::size_t { x, dy, positions, style, base };
}

RopeStyle style_of(const Case& c) { return c.in[rope_input::style]() != 0 ? RopeStyle::half_split : RopeStyle::interleaved; }
RopeStyle other(RopeStyle s) { return s == RopeStyle::half_split ? RopeStyle::interleaved : RopeStyle::half_split; }

struct RopeKnobs {
  bool other_pairing = false;      // the other style's pairs (and its frequencies)
  bool other_frequencies = false;  // the other style's frequency of each feature, on this style's pairs
  double backward_sign = -1;       // the backward's rotation: by −angle
  int position_shift = 0;          // positions[s] + shift
  bool positions_ignored = false;  // row s at position s
  double exponent = 2;             // θ_i = base^(−exponent·i/D)
};

// Feature f's pair index in `style`'s layout: interleaved f / 2, half_split f mod D/2.
std::size_t frequency_index(std::size_t f, std::size_t D, RopeStyle style) {
  return style == RopeStyle::interleaved ? f / 2 : f % (D / 2);
}

Array rope_by_loops(const Array& x, const Case& c, const RopeKnobs& kn, double sign) {
  const RopeStyle pairing = kn.other_pairing ? other(style_of(c)) : style_of(c);
  const RopeStyle frequencies = kn.other_frequencies ? other(pairing) : pairing;
  const std::vector<std::int64_t> positions = int_list(c.in[rope_input::positions]);
  const double base = c.in[rope_input::base]();
  const std::size_t D = last_dim(x), S = x.shape()[x.dimension() - 2], R = rows_of(x);
  Array y = Array::from_shape(x.shape());
  for (std::size_t r = 0; r < R; ++r) {
    const double pos = double(kn.positions_ignored ? std::int64_t(r % S) : positions[r % S] + kn.position_shift);
    auto angle = [&](std::size_t f) {
      return sign * pos * std::pow(base, -kn.exponent * double(frequency_index(f, D, frequencies)) / double(D));
    };
    for (std::size_t i = 0; i < D / 2; ++i) {
      const std::size_t a = pairing == RopeStyle::interleaved ? 2 * i : i;
      const std::size_t b = pairing == RopeStyle::interleaved ? 2 * i + 1 : i + D / 2;
      const double xa = x.data()[r * D + a], xb = x.data()[r * D + b];
      y.data()[r * D + a] = xa * std::cos(angle(a)) - xb * std::sin(angle(a));
      y.data()[r * D + b] = xa * std::sin(angle(b)) + xb * std::cos(angle(b));
    }
  }
  return y;
}

Runner rope_wrong(RopeKnobs kn) {
  return [kn](const Case& c) {
    return Outputs{rope_by_loops(c.in[rope_input::x], c, kn, 1.0), rope_by_loops(c.in[rope_input::dy], c, kn, kn.backward_sign)};
  };
}

std::string style_name(RopeStyle s) { return s == RopeStyle::half_split ? "half_split" : "interleaved"; }

}  // namespace

Spec rope_spec() {
  Spec s;
  s.exercise = "rope";
  for (RopeStyle style : {RopeStyle::interleaved, RopeStyle::half_split}) {
    Draw d(style == RopeStyle::half_split ? 161 : 162);
    auto add_case = [&](Text name, Array x, std::vector<double> positions, double base) {
      Case c;
      c.name = {style_name(style) + ": " + name.en, style_name(style) + "：" + name.zh};
      Array dy = d.normal(Shape(x.shape().begin(), x.shape().end()));
      c.in = {std::move(x), std::move(dy), array_of(positions), scalar(style == RopeStyle::half_split ? 1 : 0), scalar(base)};
      s.cases.push_back(c);
    };
    Array example = xt::zeros<double>({1, 4});
    for (std::size_t f = 0; f < 4; ++f) example(0, f) = double(f + 1);
    add_case({"worked example x = [1, 2, 3, 4], position 1, base 100", "例子 x = [1, 2, 3, 4]，位置 1，base 100"}, example, {1},
             100);
    add_case({"random (5, 6), positions 0 .. 4", "随机 (5, 6)，位置 0 .. 4"}, d.normal({5, 6}), {0, 1, 2, 3, 4}, 10000);
    add_case({"a decode step (2, 3, 8), positions 7, 8, 9 (the cache holds 7)", "解码步 (2, 3, 8)，位置 7、8、9（缓存里有 7 个）"},
             d.normal({2, 3, 8}), {7, 8, 9}, 10000);
    add_case({"random (4, 4), positions [4, 0, 9, 2], base 500", "随机 (4, 4)，位置 [4, 0, 9, 2]，base 500"}, d.normal({4, 4}),
             {4, 0, 9, 2}, 500);
  }
  s.reference = [](const Case& c) {
    const std::vector<std::int64_t> positions = int_list(c.in[rope_input::positions]);
    const double base = c.in[rope_input::base]();
    const RopeStyle style = style_of(c);
    const Outputs o = value_and_grads(
        [&](const std::vector<Tensor>& t) { return rotary_embedding(t[0], positions, base, style); }, {c.in[rope_input::x]},
        c.in[rope_input::dy]);
    return Outputs{o[0], o[1]};
  };
  const std::vector<std::size_t> outputs{1, 1};
  RopeKnobs k;
  k.other_pairing = true;
  add_in_any_parts(s, "other_style", outputs, rope_wrong(k),
                   {"You wrote the other style's pairing: half_split pairs (i, i + D/2) (Hugging Face's rotate_half), "
                    "interleaved pairs (2i, 2i + 1) (Meta's LLaMA). Both are right, but not for the same weights: "
                    "the report's case names say which style was asked; write that one, or switch the style you "
                    "implement.",
                    "你写成了另一种风格的配对：half_split 配对 (i, i + D/2)（Hugging Face 的 rotate_half），interleaved 配对 "
                    "(2i, 2i + 1)（Meta 的 LLaMA）。两种都对，但对应的权重不同：报告里用例的名字写着要求的是哪种风格；按那种写，"
                    "或者换成你实现的那种。"});
  k = {};
  k.other_frequencies = true;
  add_in_any_parts(s, "wrong_pairing", outputs, rope_wrong(k),
                   {"The pairs and the frequencies do not match: the pairs are this style's, but each feature's angle "
                    "is laid out for the other style (cos and sin built with repeat_interleave for rotate_half, or "
                    "cat(freqs, freqs) for interleaved pairs). Both features of a pair rotate by the same angle "
                    "pos·θ_i: pair i is (2i, 2i + 1) interleaved, (i, i + D/2) half_split.",
                    "配对和频率对不上：配对是这种风格的，但每个特征的角度是按另一种风格排的（给 rotate_half 用 repeat_interleave "
                    "构造 cos 和 sin，或给相邻配对用 cat(freqs, freqs)）。一对里的两个特征要旋转同一个角度 pos·θ_i：第 i 对"
                    "在 interleaved 中是 (2i, 2i + 1)，在 half_split 中是 (i, i + D/2)。"});
  k = {};
  k.backward_sign = 1;
  add_in_any_parts(s, "backward_rotates_forward", outputs, rope_wrong(k),
                   {"The backward rotates dy by +angle, as the forward does. The forward is y = R(angle) x, so "
                    "dx = R(angle)ᵀ dy = R(−angle) dy: the same pairs, with sin's sign flipped.",
                    "反向把 dy 旋转了 +angle，和前向一样。前向是 y = R(angle) x，所以 dx = R(angle)ᵀ dy = R(−angle) dy："
                    "同样的配对，sin 的符号相反。"},
                   {1});
  const Text off_by_one{
      "The positions are off by one: row s is at position positions[s] (a decode step after a cache of n tokens "
      "starts at n, not n + 1 or n − 1; a prompt starts at 0).",
      "位置差了一：第 s 行的位置是 positions[s]（缓存里已有 n 个 token 时，解码步从 n 开始，不是 n + 1 或 n − 1；"
      "提示词从 0 开始）。"};
  for (int shift : {1, -1}) {
    k = {};
    k.position_shift = shift;
    add_in_any_parts(s, "position_off_by_one", outputs, rope_wrong(k), off_by_one);
  }
  k = {};
  k.positions_ignored = true;
  add_in_any_parts(s, "positions_ignored", outputs, rope_wrong(k),
                   {"Row s is rotated by its index s, not by positions[s]: in a decode step the rows are the new "
                    "tokens at positions n, n + 1, ... after the cache. Use positions[s].",
                    "第 s 行按它的下标 s 旋转，而不是 positions[s]：解码步里的行是缓存之后位置为 n、n + 1、…… 的新 token。"
                    "要用 positions[s]。"});
  k = {};
  k.exponent = 1;
  add_in_any_parts(s, "base_exponent_wrong", outputs, rope_wrong(k),
                   {"The frequencies are θ_i = base^(−i/D): the exponent is −2i/D, θ_i = base^(−2i/D) for the pair "
                    "index i = 0 .. D/2 − 1 (the same as base^(−j/D) for the even feature j = 2i).",
                    "频率写成了 θ_i = base^(−i/D)：指数应为 −2i/D，对配对下标 i = 0 .. D/2 − 1，θ_i = base^(−2i/D)"
                    "（等于偶数特征 j = 2i 的 base^(−j/D)）。"});
  s.fd = {0, rope_input::x, rope_input::dy, 1};  // dx against the learner's own forward
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_rope(RopeForward forward, RopeBackward backward, const Options& options) {
  Spec spec = rope_spec();
  // The styles the learner wrote: a style whose forward throws NotImplemented on a small row is left out
  // (both left out: every case stays, and the report says not_implemented).
  std::vector<Case> written;
  for (RopeStyle style : {RopeStyle::interleaved, RopeStyle::half_split}) {
    const RunResult probe = run_isolated(
        [&] { return Outputs{forward(Array(xt::ones<double>({1, 4})), {1}, 10000.0, style)}; }, options);
    if (probe.not_implemented) continue;
    for (const Case& c : spec.cases)
      if (style_of(c) == style) written.push_back(c);
  }
  if (!written.empty()) spec.cases = written;
  auto call = [](const Case& c) {
    return std::make_tuple(int_list(c.in[rope_input::positions]), c.in[rope_input::base](), style_of(c));
  };
  return graded(std::move(spec),
                {{"rope_forward", {"y"},
                  [=](const Case& c) {
                    const auto [positions, base, style] = call(c);
                    return Outputs{forward(c.in[rope_input::x], positions, base, style)};
                  }},
                 {"rope_backward", {"dx"},
                  [=](const Case& c) {
                    const auto [positions, base, style] = call(c);
                    return Outputs{backward(c.in[rope_input::dy], positions, base, style)};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
