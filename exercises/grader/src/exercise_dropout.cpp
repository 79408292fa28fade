// Exercise 20: inverted dropout forward and backward with the mask given, training and eval. The
// reference is the library's dropout (the mask the learner gets is the one it draws from the case's
// seed); the catalogue: the two passes elementwise with knobs.

#include <xtensor/xoperation.hpp>

#include "grader.hpp"
#include "tapegrad/ops/dropout.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x, dy, {p, training, seed}}; outputs {y, dx}.
namespace input {
enum : std::size_t { x, dy, setup };
}
double p_of(const Case& c) { return c.in[input::setup](0); }
bool training_of(const Case& c) { return c.in[input::setup](1) != 0; }
std::uint64_t seed_of(const Case& c) { return static_cast<std::uint64_t>(c.in[input::setup](2)); }

// The keep mask (1 kept, 0 dropped) of the library's dropout from the case's seed.
Array mask_of(const Case& c) {
  Generator gen(seed_of(c));
  const Array scaled = dropout_scaled_mask(Shape(c.in[input::x].shape().begin(), c.in[input::x].shape().end()), p_of(c), gen);
  return xt::cast<double>(xt::not_equal(scaled, 0.0));
}

enum class Scale { inverted, none, divided_by_p, times_p };
enum class BackwardMask { reused, unmasked_scaled, identity };
struct DropoutKnobs {
  Scale scale = Scale::inverted;
  BackwardMask backward = BackwardMask::reused;
  bool eval_drops = false;  // training = false still masks and scales
};

Outputs dropout_elementwise(const Case& c, const DropoutKnobs& k) {
  const Array &x = c.in[input::x], &dy = c.in[input::dy];
  const double p = p_of(c);
  if (!training_of(c) && !k.eval_drops) return {x, dy};
  const Array m = mask_of(c);
  const double keep = p < 1 ? 1 / (1 - p) : 0.0;
  const double f = k.scale == Scale::inverted ? keep : k.scale == Scale::none ? 1.0 : k.scale == Scale::divided_by_p ? 1 / p : p;
  const Array y = x * m * f;
  const Array dx = k.backward == BackwardMask::reused ? Array(dy * m * f) : k.backward == BackwardMask::unmasked_scaled ? Array(dy * f) : dy;
  return {y, dx};
}

const Text kScaleMissing{"The kept entries are not scaled by 1/(1 − p): without it the mean of y is (1 − p) x, and the "
    "next layer sees smaller activations in training than in eval. Inverted dropout scales in "
    "training, and the backward by the same factor: y = x ⊙ mask / (1 − p), dx = dy ⊙ mask / (1 − "
    "p).",
    "保留的元素没有乘 1/(1 − p)：没有它 y 的均值是 (1 − p) x，下一层在训练时看到的激活比评估时小。反向缩放的 dropout 在训练时缩放，反向也乘同一个系数：y = x "
    "⊙ mask / (1 − p)，dx = dy ⊙ mask / (1 − p)。"};
const Text kByP{"The kept entries were scaled with p (by p, or by 1/p) instead of 1/(1 − p): p is the probability "
                "of dropping an entry and 1 − p of keeping it, and E[y] = x needs the division by the probability of "
                "keeping: y = x ⊙ mask / (1 − p).",
                "保留的元素用 p 缩放了（乘 p 或除以 p），而应该是 1/(1 − p)：p 是丢弃的概率，1 − p 才是保留的概率，"
                "要使 E[y] = x 就得除以保留的概率：y = x ⊙ mask / (1 − p)。"};
const Text kBackwardMask{"The backward did not reuse the forward's mask: the dropped entries passed a gradient. With the "
    "mask fixed the forward is linear in x, so the same entries are zero and the same factor scales "
    "the others: dx = dy ⊙ mask / (1 − p).",
    "反向没有复用前向的掩码：被丢弃的元素也传了梯度。掩码固定时前向对 x 是线性的，所以同样的位置为 0，其余乘同一个系数：dx = dy ⊙ mask / (1 − p)。"};
const Text kEvalDrops{"In eval mode (training = false) dropout is the identity: y = x and dx = dy, whatever the mask. "
                      "You dropped (and scaled) there too; with inverted dropout nothing is rescaled at eval time.",
                      "评估模式（training = false）下 dropout 是恒等映射：y = x，dx = dy，与掩码无关。你在评估时也丢弃（并缩放）了；"
                      "用反向缩放的 dropout，评估时什么都不需要缩放。"};

}  // namespace

Spec dropout_spec() {
  Spec s;
  s.exercise = "dropout";
  Draw d(20);
  struct Setup {
    Shape shape;
    double p;
    bool training;
  };
  const std::vector<Setup> setups = {{{3, 4}, 0.5, true}, {{7}, 0.2, true},   {{2, 3, 5}, 0.75, true},
                                     {{3, 4}, 0.3, false}, {{4, 3}, 0.0, true}, {{5}, 1.0, true}};
  std::uint64_t seed = 2000;
  for (const Setup& st : setups) {
    char p[16];
    std::snprintf(p, sizeof p, "%g", st.p);
    Case c;
    c.name = {shape_str(st.shape) + ", p " + p + (st.training ? ", training" : ", eval"),
              shape_str(st.shape) + "，p " + p + (st.training ? "，训练" : "，评估")};
    c.in = {d.normal(st.shape), d.normal(st.shape), Array{st.p, st.training ? 1.0 : 0.0, double(++seed)}};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    Generator gen(seed_of(c));
    return value_and_grads([&](const std::vector<Tensor>& t) { return dropout(t[0], p_of(c), training_of(c), gen); },
                           {c.in[input::x]}, c.in[input::dy]);
  };
  auto add = [&](const std::string& id, DropoutKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return dropout_elementwise(c, k); }, hint, false});
  };
  DropoutKnobs k;
  k.scale = Scale::none;
  add("inverted_scale_missing", k, kScaleMissing);
  for (Scale by_p : {Scale::divided_by_p, Scale::times_p}) {
    k = {};
    k.scale = by_p;
    add("scaled_by_p", k, kByP);
  }
  for (BackwardMask b : {BackwardMask::unmasked_scaled, BackwardMask::identity}) {
    k = {};
    k.backward = b;
    add("backward_mask_not_reused", k, kBackwardMask);
  }
  k = {};
  k.eval_drops = true;
  add("eval_still_drops", k, kEvalDrops);
  s.fd.forward_part = 0;  // dropout_forward
  s.fd.x_input = input::x, s.fd.dy_input = input::dy;
  s.fd.grad_output = 1;  // dx, after y
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_dropout(DropoutForward forward, DropoutBackward backward, const Options& options) {
  return graded(dropout_spec(),
                {{"dropout_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[input::x], mask_of(c), p_of(c), training_of(c))}; }},
                 {"dropout_backward", {"dx"},
                  [=](const Case& c) { return Outputs{backward(c.in[input::dy], mask_of(c), p_of(c), training_of(c))}; }}},
                options);
}

}  // namespace tapegrad::exercise
