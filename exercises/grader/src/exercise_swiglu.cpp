// Exercise 18: the SwiGLU FFN y = (silu(x W1ᵀ) ⊙ x W3ᵀ) W2ᵀ, forward and backward. The reference is the
// library's linear and swiglu ops; the catalogue is the FFN on row matrices with a knob per known mistake.

#include <cmath>
#include <utility>

#include "grader.hpp"
#include "row_matrices.hpp"
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/matmul.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x, w1, w3, w2, dy}; outputs {y, dx, dw1, dw3, dw2}.
namespace input {
enum : std::size_t { x, w1, w3, w2, dy };
}
struct SwigluKnobs {
  bool sigmoid_gate = false;     // σ(g) in place of silu(g) = g σ(g), forward and backward
  bool silu_grad_sigma = false;  // silu'(g) taken as σ(g), without g σ(g)(1 − σ(g))
  bool gate_up_swapped = false;  // silu(x W3ᵀ) ⊙ x W1ᵀ
};

Outputs swiglu_by_rows(const Case& c, const SwigluKnobs& k) {
  const Array x = as_rows(c.in[input::x]), dy = as_rows(c.in[input::dy]);
  const Array& w_gate = k.gate_up_swapped ? c.in[input::w3] : c.in[input::w1];
  const Array& w_up = k.gate_up_swapped ? c.in[input::w1] : c.in[input::w3];
  const Array& w2 = c.in[input::w2];
  const Array g = gemm(x, w_gate, false, true), u = gemm(x, w_up, false, true);
  Array act = g, act_grad = g;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double v = g.data()[i], s = 1 / (1 + std::exp(-v));
    act.data()[i] = k.sigmoid_gate ? s : v * s;
    act_grad.data()[i] = k.sigmoid_gate ? s * (1 - s) : k.silu_grad_sigma ? s : s + v * s * (1 - s);
  }
  const Array a = act * u;
  const Array y = gemm(a, w2, false, true);
  const Array da = gemm(dy, w2);
  const Array dg = da * u * act_grad, du = da * act;
  Array dw_gate = gemm(dg, x, true), dw_up = gemm(du, x, true);
  const Array dx = gemm(dg, w_gate) + gemm(du, w_up);
  if (k.gate_up_swapped) std::swap(dw_gate, dw_up);  // w1 was used as the up projection
  return {with_leading_axes(y, c.in[input::x]), with_leading_axes(dx, c.in[input::x]), dw_gate, dw_up,
          gemm(dy, a, true)};
}

const Text kSigmoid{"The gate used σ(g), GLU's sigmoid gate, instead of SwiGLU's silu. Multiply by g: a = silu(g) ⊙ "
    "u with silu(g) = g σ(g), and in the backward silu'(g) = σ(g) + g σ(g)(1 − σ(g)).",
    "门控用了 σ(g)，那是 GLU 的 sigmoid 门，而不是 SwiGLU 的 silu。乘上 g：a = silu(g) ⊙ u，其中 silu(g) = g σ(g)，反向里 "
    "silu'(g) = σ(g) + g σ(g)(1 − σ(g))。"};
const Text kSiluGrad{"silu'(g) was taken as σ(g) alone. silu(g) is g·σ(g) and σ' is σ(1 − σ), so by the product rule: "
    "silu'(g) = σ(g) + g·σ(g)(1 − σ(g)), and dg = da ⊙ u ⊙ silu'(g).",
    "silu'(g) 只取了 σ(g)。silu(g) 是 g·σ(g)，σ' 是 σ(1 − σ)，按乘积法则：silu'(g) = σ(g) + g·σ(g)(1 − σ(g))，dg = "
    "da ⊙ u ⊙ silu'(g)。"};
const Text kSwapped{"The gate and the up projection are swapped: silu went on x W3ᵀ, times x W1ᵀ. W1 is the gate "
                    "(LLaMA's gate_proj, this exercise's w1): a = silu(x W1ᵀ) ⊙ x W3ᵀ. The two are not "
                    "interchangeable: silu goes on one of them only, and the gradients follow.",
                    "门控和上投影弄反了：silu 作用在 x W3ᵀ 上，再乘 x W1ᵀ。W1 才是门控（LLaMA 的 gate_proj，本题的 w1）："
                    "a = silu(x W1ᵀ) ⊙ x W3ᵀ。两者不能互换：silu 只作用在其中一个上，梯度也随之不同。"};

}  // namespace

Spec swiglu_spec() {
  Spec s;
  s.exercise = "swiglu";
  Draw d(18);
  struct Shp {
    Shape x;
    std::size_t hidden, out;
    double spread;
  };
  for (const Shp& sh : std::vector<Shp>{{{3, 4}, 7, 4, 1}, {{5}, 9, 3, 1}, {{2, 3, 5}, 11, 5, 1}, {{4, 3}, 5, 2, 4}}) {
    const std::size_t in = sh.x.back();
    Shape yshape(sh.x.begin(), sh.x.end() - 1);
    yshape.push_back(sh.out);
    Case c;
    c.name = {"x " + shape_str(sh.x) + ", hidden " + std::to_string(sh.hidden) + (sh.spread > 1 ? ", large gates" : ""),
              "x " + shape_str(sh.x) + "，隐藏层 " + std::to_string(sh.hidden) + (sh.spread > 1 ? "，大的门控值" : "")};
    c.in = {d.normal(sh.x, 0, sh.spread), d.normal({sh.hidden, in}, 0, 0.7), d.normal({sh.hidden, in}, 0, 0.7),
            d.normal({sh.out, sh.hidden}, 0, 0.5), d.normal(yshape)};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    return value_and_grads(
        [](const std::vector<Tensor>& t) { return linear(swiglu(linear(t[0], t[1]), linear(t[0], t[2])), t[3]); },
        {c.in[input::x], c.in[input::w1], c.in[input::w3], c.in[input::w2]}, c.in[input::dy]);
  };
  auto add = [&](const std::string& id, SwigluKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return swiglu_by_rows(c, k); }, hint, false});
  };
  SwigluKnobs k;
  k.sigmoid_gate = true;
  add("sigmoid_instead_of_silu", k, kSigmoid);
  k = {};
  k.silu_grad_sigma = true;
  add("silu_grad_missing_term", k, kSiluGrad);
  k = {};
  k.gate_up_swapped = true;
  add("gate_up_swapped", k, kSwapped);
  s.fd.forward_part = 0;  // swiglu_forward
  s.fd.x_input = input::x, s.fd.dy_input = input::dy;
  s.fd.grad_output = 1;  // dx, after y
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_swiglu(SwigluForward forward, SwigluBackward backward, const Options& options) {
  return graded(swiglu_spec(),
                {{"swiglu_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[input::x], c.in[input::w1], c.in[input::w3], c.in[input::w2])};
                  }},
                 {"swiglu_backward", {"dx", "dw1", "dw3", "dw2"},
                  [=](const Case& c) {
                    const SwigluGrads g = backward(c.in[input::dy], c.in[input::x], c.in[input::w1], c.in[input::w3], c.in[input::w2]);
                    return Outputs{g.dx, g.dw1, g.dw3, g.dw2};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
