// Exercise 6: the FFN y = act(x W1ᵀ + b1) W2ᵀ + b2, ReLU and GELU (exact, erf), forward and backward.
// The reference is the library's fused feed_forward; the catalogue is the backward on plain loops
// with a knob per known mistake.

#include <cmath>

#include "grader.hpp"
#include "tapegrad/ops/feed_forward.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x, w1, b1, w2, b2, dy}, by name:
namespace input {
enum : std::size_t { x, w1, b1, w2, b2, dy };
}
struct FfnKnobs {
  bool relu_mask = true;
  bool act_grad = true;  // false: dh = da, act'(h) left out for either activation
  bool transpose_w1 = false, transpose_w2 = false;  // dW as xᵀ·dh (in, out) instead of dhᵀ·x (out, in)
  bool sum_b1 = true, sum_b2 = true;                // db summed over the rows
  bool gelu_tanh_forward = false, gelu_tanh_backward = false;  // the tanh approximation in place of erf
  bool gelu_grad_phi_only = false;                  // GELU′(h) taken as Φ(h), without h·φ(h)
};

// GELU's tanh approximation 0.5·h·(1 + tanh(√(2/π)(h + 0.044715 h³))) and its derivative.
double gelu_tanh(double h) {
  return 0.5 * h * (1 + std::tanh(std::sqrt(2 / M_PI) * (h + 0.044715 * h * h * h)));
}
double gelu_tanh_grad(double h) {
  const double t = std::tanh(std::sqrt(2 / M_PI) * (h + 0.044715 * h * h * h));
  return 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * std::sqrt(2 / M_PI) * (1 + 3 * 0.044715 * h * h);
}

// (R, n) row-major views: the rows of x are all its leading axes.
Array rows(const Array& a) {
  Array r = a;
  r.reshape({rows_of(a), last_dim(a)});
  return r;
}
Array t_matmul(const Array& a, const Array& b) {  // a (R, n), b (R, k) -> aᵀ b (n, k)
  Array out = xt::zeros<double>({a.shape()[1], b.shape()[1]});
  for (std::size_t r = 0; r < a.shape()[0]; ++r)
    for (std::size_t i = 0; i < a.shape()[1]; ++i)
      for (std::size_t j = 0; j < b.shape()[1]; ++j) out(i, j) += a(r, i) * b(r, j);
  return out;
}

Array matmul(const Array& a, const Array& b) {  // a (R, k), b (k, n) -> a b (R, n)
  Array out = xt::zeros<double>({a.shape()[0], b.shape()[1]});
  for (std::size_t i = 0; i < a.shape()[0]; ++i)
    for (std::size_t j = 0; j < b.shape()[1]; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < a.shape()[1]; ++k) s += a(i, k) * b(k, j);
      out(i, j) = s;
    }
  return out;
}

Array matmul_t(const Array& a, const Array& b) {  // a (R, k), b (n, k) -> a bᵀ (R, n)
  return matmul(a, Array(xt::transpose(b)));
}

Outputs ffn_by_loops(const Case& c, const FfnKnobs& k) {
  const bool relu = c.activation == "relu";
  const Array x = rows(c.in[input::x]), dy = rows(c.in[input::dy]);
  const Array &w1 = c.in[input::w1], &b1 = c.in[input::b1], &w2 = c.in[input::w2], &b2 = c.in[input::b2];
  Array h = matmul_t(x, w1);
  for (std::size_t i = 0; i < h.shape()[0]; ++i)
    for (std::size_t j = 0; j < h.shape()[1]; ++j) h(i, j) += b1(j);
  Array a = h, da_dh = h;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double v = h.data()[i];
    if (relu) {
      a.data()[i] = v > 0 ? v : 0;
      da_dh.data()[i] = !k.relu_mask || v > 0 ? 1 : 0;
    } else {
      const double Phi = 0.5 * (1 + std::erf(v / std::sqrt(2.0))), phi = std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
      a.data()[i] = k.gelu_tanh_forward ? gelu_tanh(v) : v * Phi;
      da_dh.data()[i] = k.gelu_tanh_backward ? gelu_tanh_grad(v) : k.gelu_grad_phi_only ? Phi : Phi + v * phi;
    }
    if (!k.act_grad) da_dh.data()[i] = 1;
  }
  Array y = matmul_t(a, w2);
  for (std::size_t i = 0; i < y.shape()[0]; ++i)
    for (std::size_t j = 0; j < y.shape()[1]; ++j) y(i, j) += b2(j);
  // backward
  Array dw2 = k.transpose_w2 ? t_matmul(a, dy) : t_matmul(dy, a);
  Array db2 = k.sum_b2 ? Array(xt::sum(dy, {0})) : dy;
  Array da = matmul(dy, w2);
  Array dh = da * da_dh;
  Array dw1 = k.transpose_w1 ? t_matmul(x, dh) : t_matmul(dh, x);
  Array db1 = k.sum_b1 ? Array(xt::sum(dh, {0})) : dh;
  Array dx = matmul(dh, w1);
  // back to x's leading axes
  Shape lead(c.in[input::x].shape().begin(), c.in[input::x].shape().end() - 1);
  auto reshaped = [&](Array v, std::size_t n) {
    Shape s = lead;
    s.push_back(n);
    v.reshape(s);
    return v;
  };
  y = reshaped(y, w2.shape()[0]);
  dx = reshaped(dx, x.shape()[1]);
  if (!k.sum_b1) db1 = reshaped(db1, w1.shape()[0]);
  if (!k.sum_b2) db2 = reshaped(db2, w2.shape()[0]);
  return {y, dx, dw1, db1, dw2, db2};
}

const Text kMask{"The ReLU mask is missing: the gradient went through ReLU as if it were the identity. "
                 "ReLU'(h) is 1 where h > 0 and 0 elsewhere, so dh = da ⊙ [h > 0]: the units that were off "
                 "get no gradient.",
                 "缺了 ReLU 的掩码：梯度像经过恒等函数一样穿过了 ReLU。ReLU'(h) 在 h > 0 处为 1，其余为 0，"
                 "所以 dh = da ⊙ [h > 0]：没有激活的单元没有梯度。"};
const Text kActGradMissing{"The activation's derivative is missing: dh = da, as if act were the identity. The chain "
                           "rule through a = act(h) multiplies by act'(h) elementwise: dh = da ⊙ [h > 0] for ReLU, "
                           "dh = da ⊙ (Φ(h) + h φ(h)) for GELU.",
                           "缺了激活函数的导数：dh = da，好像 act 是恒等函数。经过 a = act(h) 的链式法则要逐元素乘以 "
                           "act'(h)：ReLU 是 dh = da ⊙ [h > 0]，GELU 是 dh = da ⊙ (Φ(h) + h φ(h))。"};
const Text kTransposed{"A weight gradient is transposed: it has the shape (in, out), not nn.Linear's (out, in). "
                       "For z = x Wᵀ + b the gradient is dW = dzᵀ x, one row per output unit.",
                       "权重梯度转置了：形状是 (in, out)，而不是 nn.Linear 的 (out, in)。z = x Wᵀ + b 的梯度是 "
                       "dW = dzᵀ x，每个输出单元一行。"};
const Text kBiasNotSummed{"A bias gradient was not summed over the rows: it has one row per token instead of the "
                          "bias's shape. b is added to every row, so db = Σ_rows dz.",
                          "偏置梯度没有对所有行求和：它每个 token 一行，而不是偏置的形状。b 加到了每一行上，所以 db = Σ_行 dz。"};

const Text kPhiOnly{"GELU′(h) was taken as Φ(h) alone. GELU(h) = h·Φ(h), so by the product rule "
                    "GELU′(h) = Φ(h) + h·φ(h), with φ(h) = exp(−h²/2)/sqrt(2π) the normal density.",
                    "GELU′(h) 只取了 Φ(h)。GELU(h) = h·Φ(h)，按乘积法则 GELU′(h) = Φ(h) + h·φ(h)，"
                    "其中 φ(h) = exp(−h²/2)/sqrt(2π) 是正态分布的密度。"};
const Text kTanh{"You used GELU's tanh approximation, 0.5·h·(1 + tanh(√(2/π)(h + 0.044715 h³))). This exercise "
                 "checks the exact GELU, h·Φ(h) = 0.5·h·(1 + erf(h/√2)) (PyTorch's default); the two differ by up to "
                 "~1e-3, which is no rounding error.",
                 "你用了 GELU 的 tanh 近似 0.5·h·(1 + tanh(√(2/π)(h + 0.044715 h³)))。这道题检查的是精确的 GELU："
                 "h·Φ(h) = 0.5·h·(1 + erf(h/√2))（PyTorch 的默认）；两者最多相差约 1e-3，这不是舍入误差。"};

}  // namespace

Spec ffn_spec() {
  Spec s;
  s.exercise = "ffn";
  Draw d(6);
  struct Shp {
    Shape x;
    std::size_t hidden, out;
    const char* act;
  };
  const std::vector<Shp> shapes = {{{3, 4}, 7, 4, "relu"}, {{5}, 9, 3, "relu"}, {{2, 3, 5}, 11, 5, "relu"},
                                   {{3, 4}, 7, 4, "gelu"}, {{2, 3, 5}, 11, 3, "gelu"}};
  for (const Shp& sh : shapes) {
    const std::size_t in = sh.x.back();
    Shape yshape(sh.x.begin(), sh.x.end() - 1);
    yshape.push_back(sh.out);
    Case c;
    c.name = {std::string(sh.act) + " x " + shape_str(sh.x) + ", hidden " + std::to_string(sh.hidden),
              std::string(sh.act) + " x " + shape_str(sh.x) + "，隐藏层 " + std::to_string(sh.hidden)};
    c.activation = sh.act;
    c.in = {d.normal(sh.x), d.normal({sh.hidden, in}, 0, 0.7), d.normal({sh.hidden}, 0, 0.5),
            d.normal({sh.out, sh.hidden}, 0, 0.5), d.normal({sh.out}, 0, 0.5), d.normal(yshape)};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    return value_and_grads(
        [&](const std::vector<Tensor>& t) { return feed_forward(t[0], t[1], t[2], t[3], t[4], c.activation); },
        {c.in[input::x], c.in[input::w1], c.in[input::b1], c.in[input::w2], c.in[input::b2]}, c.in[input::dy]);
  };
  auto add = [&](const std::string& id, FfnKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return ffn_by_loops(c, k); }, hint, false});
  };
  FfnKnobs k;
  k.relu_mask = false;
  add("relu_mask_missing", k, kMask);
  FfnKnobs no_act_grad;
  no_act_grad.act_grad = false;
  add("activation_grad_missing", no_act_grad, kActGradMissing);
  for (int which = 1; which <= 3; ++which) {
    FfnKnobs t;
    t.transpose_w1 = which & 1, t.transpose_w2 = which & 2;
    add("weight_grad_transposed", t, kTransposed);
    FfnKnobs b;
    b.sum_b1 = !(which & 1), b.sum_b2 = !(which & 2);
    add("bias_grad_not_summed", b, kBiasNotSummed);
  }
  FfnKnobs phi;
  phi.gelu_grad_phi_only = true;
  add("gelu_grad_phi_only", phi, kPhiOnly);
  FfnKnobs tanh_both;
  tanh_both.gelu_tanh_forward = tanh_both.gelu_tanh_backward = true;
  add("gelu_tanh_approximation", tanh_both, kTanh);
  FfnKnobs tanh_forward;
  tanh_forward.gelu_tanh_forward = true;
  add("gelu_tanh_approximation", tanh_forward, kTanh);
  s.fd.forward_part = 0;  // ffn_forward
  s.fd.x_input = input::x, s.fd.dy_input = input::dy;
  s.fd.grad_output = 1;  // dx, after y
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_ffn(FfnForward forward, FfnBackward backward, const Options& options) {
  return graded(ffn_spec(),
                {{"ffn_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[input::x], c.in[input::w1], c.in[input::b1], c.in[input::w2], c.in[input::b2], c.activation)};
                  }},
                 {"ffn_backward", {"dx", "dw1", "db1", "dw2", "db2"},
                  [=](const Case& c) {
                    const FfnGrads g = backward(c.in[input::dy], c.in[input::x], c.in[input::w1], c.in[input::b1], c.in[input::w2], c.in[input::b2], c.activation);
                    return Outputs{g.dx, g.dw1, g.db1, g.dw2, g.db2};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
