// Exercise 1: the residual connection y = x + x Wᵀ, forward and backward
// 练习 1：残差连接 y = x + x Wᵀ，前向和反向
//
// Check it:   scripts/exercise.sh check residual        (--lang zh: 中文报告)
//
// The residual connection adds a sublayer's input back to its output: y = x + F(x). Here the sublayer is
// a linear map without bias, F(x) = x Wᵀ, with W of nn.Linear's (out, in) layout, out = in = D. x has
// any leading axes (..., D); every row is one token.
// 残差连接把子层的输入加回到输出上：y = x + F(x)。这里的子层是不带偏置的线性映射 F(x) = x Wᵀ，W 是 nn.Linear
// 的 (out, in) 布局，out = in = D。x 可以有任意前导轴 (..., D)，每一行是一个 token。
//
//   forward:   y_i = x_i + Σ_j x_j W_ij                           (per row)
//   backward:  dx = dy + dy W          (the identity path: the "gradient highway", plus the path through F)
//              dW = Σ_rows dyᵀ x       (shape (D, D), like W)
//
// Write plain loops or xtensor expressions over Array (x.shape(), x.data()[i], w(i, j)); do not
// call the library's ops: the point is to write them. 用普通循环或 xtensor 表达式实现，不要调用库里的算子。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::ResidualGrads;

Array residual_forward(const Array& x, const Array& w) {
  throw tapegrad::exercise::NotImplemented("residual_forward");
}

ResidualGrads residual_backward(const Array& dy, const Array& x, const Array& w) {
  throw tapegrad::exercise::NotImplemented("residual_backward");  // return {dx, dw};
}
