// Exercise 8: softmax backward
// 练习 8：softmax 反向
//
// Check it:   scripts/exercise.sh check softmax_backward        (--lang zh: 中文报告)
//
// y = softmax(x) over the last axis (given: you get y, not x). Return dx for the upstream gradient dy.
// Each y_j depends on every x_i through the shared denominator: ∂y_j/∂x_i = y_j (δ_ij − y_i), so per row
// y = softmax(x) 沿最后一个轴（已给出 y，而不是 x）。对上游梯度 dy 返回 dx。每个 y_j 通过共同的分母依赖每个 x_i：
// ∂y_j/∂x_i = y_j (δ_ij − y_i)（雅可比矩阵），所以每一行
//
//   dx = y ⊙ (dy − Σ_j dy_j y_j)
//
// Trap (xtensor 0.24.3): x - xt::mean(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array softmax_backward(const Array& dy, const Array& y) {
  throw tapegrad::exercise::NotImplemented("softmax_backward");
}
