// Exercise 6: the FFN (ReLU and GELU) forward and backward
// 练习 6：FFN（ReLU 和 GELU）前向和反向
//
// Check it:   scripts/exercise.sh check ffn        (--lang zh: 中文报告)
//
// The position-wise feed-forward network of a Transformer block, per row of x (..., in):
// Transformer 块里逐位置的前馈网络，对 x (..., in) 的每一行：
//
//   h = x W1ᵀ + b1      a = act(h)      y = a W2ᵀ + b2
//   W1 (hidden, in), b1 (hidden), W2 (out, hidden), b2 (out): nn.Linear's layout / nn.Linear 的布局
//   act: activation == "relu": max(h, 0), act' = [h > 0]
//        activation == "gelu": h Φ(h), Φ(h) = ½(1 + erf(h/√2)), act' = Φ(h) + h φ(h), φ(h) = e^(−h²/2)/√(2π)
//
//   backward:  dW2 = Σ_rows dyᵀ a   db2 = Σ_rows dy   da = dy W2   dh = da ⊙ act'(h)
//              dW1 = Σ_rows dhᵀ x   db1 = Σ_rows dh   dx = dh W1
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::FfnGrads;

Array ffn_forward(const Array& x, const Array& w1, const Array& b1, const Array& w2, const Array& b2,
                  const std::string& activation) {
  throw tapegrad::exercise::NotImplemented("ffn_forward");
}

FfnGrads ffn_backward(const Array& dy, const Array& x, const Array& w1, const Array& b1, const Array& w2,
                      const Array& b2, const std::string& activation) {
  throw tapegrad::exercise::NotImplemented("ffn_backward");  // return {dx, dw1, db1, dw2, db2};
}
