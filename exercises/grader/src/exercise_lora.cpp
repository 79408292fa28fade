// Exercise 19: LoRA y = x Wᵀ + (alpha/r) (x Aᵀ) Bᵀ with W frozen: forward, backward (dx, dA, dB, no dW)
// and merge W' = W + (alpha/r) B A. References: the library's linear for the forward and backward,
// nn::LoRALinear::merge for the merge; the catalogue: all three on row matrices with knobs.

#include <cstdio>

#include <xtensor/xoperation.hpp>

#include "grader.hpp"
#include "row_matrices.hpp"
#include "tapegrad/nn/lora_linear.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/matmul.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x, w (out, in), a (r, in), b (out, r), dy, {alpha}}; outputs {y, dx, da, db, dw, merged}.
namespace input {
enum : std::size_t { x, w, a, b, dy, alpha };
}
double alpha_of(const Case& c) { return c.in[input::alpha](0); }
double scale_of(const Case& c) { return alpha_of(c) / double(c.in[input::a].shape()[0]); }

// A frozen parameter's gradient: none (a default Array, 0-d). The learner's dw left as constructed or
// all zero (of any shape) is none too.
Array no_gradient() { return Array(); }
Array as_gradient(const Array& dw) { return xt::all(xt::equal(dw, 0.0)) ? no_gradient() : dw; }

Array merged_by_module(const Case& c) {
  const Array& w = c.in[input::w];
  Generator init(0);  // its draws are overwritten: A, B and W are the case's
  nn::LoRALinear layer(w.shape()[1], w.shape()[0], c.in[input::a].shape()[0], alpha_of(c), false, init);
  layer.base_layer->weight.mutable_value() = w;
  layer.lora_A->weight.mutable_value() = c.in[input::a];
  layer.lora_B->weight.mutable_value() = c.in[input::b];
  layer.merge();
  return layer.base_layer->weight.value();
}

struct LoraKnobs {
  bool scale_forward = true, scale_backward = true, scale_merge = true;  // alpha/r where it belongs
  bool frozen_grad = false;       // dW = Σ dyᵀ x
  bool merge_transposed = false;  // ΔW = Aᵀ Bᵀ (in, out)
};

Outputs lora_by_rows(const Case& c, const LoraKnobs& k) {
  const Array x = as_rows(c.in[input::x]), dy = as_rows(c.in[input::dy]);
  const Array &w = c.in[input::w], &a = c.in[input::a], &b = c.in[input::b];
  const double s = scale_of(c);
  const double sf = k.scale_forward ? s : 1, sb = k.scale_backward ? s : 1, sm = k.scale_merge ? s : 1;
  const Array xa = gemm(x, a, false, true), dyb = gemm(dy, b);
  const Array y = gemm(x, w, false, true) + sf * gemm(xa, b, false, true);
  const Array dx = gemm(dy, w) + sb * gemm(dyb, a);
  const Array da = sb * gemm(dyb, x, true), db = sb * gemm(dy, xa, true);
  const Array dw = k.frozen_grad ? gemm(dy, x, true) : no_gradient();
  Array merged;
  if (!k.merge_transposed) merged = w + sm * gemm(b, a);
  else if (w.shape()[0] == w.shape()[1]) merged = w + sm * gemm(a, b, true, true);
  else merged = sm * gemm(a, b, true, true);  // (in, out): cannot be added to W (the learner's code throws)
  return {with_leading_axes(y, c.in[input::x]), with_leading_axes(dx, c.in[input::x]), da, db, dw, merged};
}

const Text kScale{"The scale alpha/r is missing: the low-rank update counts alpha/r times too little or too much. "
    "LoRA scales it so that a change of r does not change how much the update weighs, in the "
    "forward, in dx, dA and dB, and in the merge alike: y = x Wᵀ + (alpha/r)(x Aᵀ)Bᵀ, W' = W + "
    "(alpha/r) B A.",
    "缺了缩放 alpha/r：低秩更新的分量大了或小了 alpha/r 倍。LoRA 缩放它，使改变 r 不改变更新的分量；前向、dx、dA、dB 和合并里都有同一个系数：y = x Wᵀ + "
    "(alpha/r)(x Aᵀ)Bᵀ，W' = W + (alpha/r) B A。"};
const Text kFrozen{"W got a gradient, but W is frozen: LoRA trains A and B only (the base layer has requires_grad "
    "false, as in PEFT), r·(in + out) numbers instead of in·out. Leave dw empty: the gradients are "
    "dA = (alpha/r) Σ (dy B)ᵀ x and dB = (alpha/r) Σ dyᵀ (x Aᵀ).",
    "W 得到了梯度，但 W 是冻结的：LoRA 只训练 A 和 B（基础层 requires_grad 为 false，同 PEFT），可训练的参数是 r·(in + out) 个，而不是 "
    "in·out 个。dw 保持为空：梯度是 dA = (alpha/r) Σ (dy B)ᵀ x 和 dB = (alpha/r) Σ dyᵀ (x Aᵀ)。"};
const Text kOrder{"The merge used Aᵀ Bᵀ (in, out), the update transposed: y = x Aᵀ Bᵀ = x (B A)ᵀ, so W (out, in) "
                  "changes by ΔW = B A: W' = W + (alpha/r) B A. (With in ≠ out, Aᵀ Bᵀ cannot even be added to W.)",
                  "合并时用了 Aᵀ Bᵀ (in, out)，即更新的转置：y = x Aᵀ Bᵀ = x (B A)ᵀ，所以 W (out, in) 的变化是 "
                  "ΔW = B A：W' = W + (alpha/r) B A。（in ≠ out 时 Aᵀ Bᵀ 根本加不到 W 上。）"};

}  // namespace

Spec lora_spec() {
  Spec s;
  s.exercise = "lora";
  Draw d(19);
  struct Setup {
    Shape x;
    std::size_t out, r;
    double alpha;
  };
  for (const Setup& st : std::vector<Setup>{{{3, 4}, 4, 2, 8}, {{5}, 3, 2, 3}, {{2, 3, 6}, 6, 3, 12}, {{4, 5}, 7, 1, 16}}) {
    const std::size_t in = st.x.back();
    Shape yshape(st.x.begin(), st.x.end() - 1);
    yshape.push_back(st.out);
    char alpha[16];
    std::snprintf(alpha, sizeof alpha, "%g", st.alpha);
    Case c;
    c.name = {"x " + shape_str(st.x) + ", out " + std::to_string(st.out) + ", r " + std::to_string(st.r) + ", alpha " + alpha,
              "x " + shape_str(st.x) + "，out " + std::to_string(st.out) + "，r " + std::to_string(st.r) + "，alpha " + alpha};
    // B is not zero (PEFT's init) here: B = 0 would hide every mistake of the low-rank path.
    c.in = {d.normal(st.x), d.normal({st.out, in}, 0, 0.5), d.normal({st.r, in}, 0, 0.5), d.normal({st.out, st.r}, 0, 0.5),
            d.normal(yshape), Array{st.alpha}};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    const Tensor w(c.in[input::w]);  // frozen: not an input of the gradient
    const double scale = scale_of(c);
    Outputs o = value_and_grads(
        [&](const std::vector<Tensor>& t) { return linear(t[0], w) + scale * linear(linear(t[0], t[1]), t[2]); },
        {c.in[input::x], c.in[input::a], c.in[input::b]}, c.in[input::dy]);
    return Outputs{o[0], o[1], o[2], o[3], no_gradient(), merged_by_module(c)};
  };
  auto add = [&](const std::string& id, LoraKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return lora_by_rows(c, k); }, hint, false});
  };
  LoraKnobs k;
  k.scale_forward = k.scale_backward = k.scale_merge = false;
  add("alpha_over_r_missing", k, kScale);
  for (int where = 0; where < 3; ++where) {  // left out in one function only
    k = {};
    (where == 0 ? k.scale_forward : where == 1 ? k.scale_backward : k.scale_merge) = false;
    add("alpha_over_r_missing", k, kScale);
  }
  k = {};
  k.frozen_grad = true;
  add("frozen_weight_gradient", k, kFrozen);
  k = {};
  k.merge_transposed = true;
  add("a_b_order_swapped", k, kOrder);
  s.fd.forward_part = 0;  // lora_forward
  s.fd.x_input = input::x, s.fd.dy_input = input::dy;
  s.fd.grad_output = 1;  // dx, after y
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_lora(LoraForward forward, LoraBackward backward, LoraMerge merge, const Options& options) {
  return graded(lora_spec(),
                {{"lora_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[input::x], c.in[input::w], c.in[input::a], c.in[input::b], alpha_of(c))};
                  }},
                 {"lora_backward", {"dx", "da", "db", "dw"},
                  [=](const Case& c) {
                    const LoraGrads g = backward(c.in[input::dy], c.in[input::x], c.in[input::w], c.in[input::a], c.in[input::b], alpha_of(c));
                    return Outputs{g.dx, g.da, g.db, as_gradient(g.dw)};
                  }},
                 {"lora_merge", {"merged W"},
                  [=](const Case& c) {
                    return Outputs{merge(c.in[input::w], c.in[input::a], c.in[input::b], alpha_of(c))};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
