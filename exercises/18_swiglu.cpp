// Exercise 18: the SwiGLU FFN forward and backward
// 练习 18：SwiGLU FFN 的前向和反向
//
// Check it:   scripts/exercise.sh check swiglu        (--lang zh: 中文报告)
//
// LLaMA's feed-forward network, per row of x (..., in), no biases (W1 the gate, W3 the up projection,
// W2 the down projection, nn.Linear's layout):
// LLaMA 的前馈网络，对 x (..., in) 的每一行，没有偏置（W1 是门控，W3 是上投影，W2 是下投影，nn.Linear 的布局）：
//
//   g = x W1ᵀ      u = x W3ᵀ      a = silu(g) ⊙ u      y = a W2ᵀ
//   W1, W3 (hidden, in), W2 (out, hidden)
//   silu(g) = g σ(g),  σ(g) = 1/(1 + e^(−g)),   silu'(g) = σ(g) + g σ(g)(1 − σ(g))
//
//   backward / 反向:  dW2 = Σ_rows dyᵀ a   da = dy W2   dg = da ⊙ u ⊙ silu'(g)   du = da ⊙ silu(g)
//                     dW1 = Σ_rows dgᵀ x   dW3 = Σ_rows duᵀ x   dx = dg W1 + du W3
//
// Worked example / 例子: in = hidden = out = 1, W1 = W3 = W2 = [1], x = 1:
//   g = u = 1, σ(1) = 0.7311, silu(1) = 0.7311, y = 0.7311;
//   dy = 1: silu'(1) = 0.7311 + 0.7311·0.2689 = 0.9277, dx = 0.9277 + 0.7311 = 1.6588
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::SwigluGrads;

Array swiglu_forward(const Array& x, const Array& w1, const Array& w3, const Array& w2) {
  throw tapegrad::exercise::NotImplemented("swiglu_forward");
}

SwigluGrads swiglu_backward(const Array& dy, const Array& x, const Array& w1, const Array& w3, const Array& w2) {
  throw tapegrad::exercise::NotImplemented("swiglu_backward");  // return {dx, dw1, dw3, dw2};
}
