// Exercise 11: softmax forward, the safe form and the online (one-pass) form
// 练习 11：softmax 前向，安全形式和在线（一遍）形式
//
// Check it:   scripts/exercise.sh check softmax        (--lang zh: 中文报告)
//
// Over the last axis of x (any rank), per row:   y_j = exp(x_j − m) / Σ_k exp(x_k − m),   m = max_k x_k.
// Subtracting m changes nothing mathematically, but exp(1000) overflows to inf (inf/inf = NaN): the grader has
// a case with scores near 1000.
// 沿 x 的最后一个轴（任意维数），每一行：y_j = exp(x_j − m) / Σ_k exp(x_k − m)，m = max_k x_k。减去 m 在数学上
// 不改变结果，但 exp(1000) 会溢出成 inf（inf/inf = NaN）：检查器有一个分数接近 1000 的用例。
//
// The online form (as FlashAttention) finds m and the sum d in ONE pass: for each x_j,
//   m_new = max(m, x_j),   d = d · exp(m − m_new) + exp(x_j − m_new),   m = m_new
// (the old sum is rescaled to the new max), then y_j = exp(x_j − m) / d in a second pass.
// 在线形式（如 FlashAttention）一遍就求出 m 和分母 d：对每个 x_j，m_new = max(m, x_j)，
// d = d · exp(m − m_new) + exp(x_j − m_new)，m = m_new（旧的和要按新的最大值重新缩放），然后第二遍 y_j = exp(x_j − m) / d。
//
// Worked example 例子:  x = [1, 2, 3]  ->  y = [0.0900306, 0.244728, 0.665241];
//   online: (m, d) = (1, 1) -> (2, 1·e⁻¹ + 1 = 1.36788) -> (3, 1.36788·e⁻¹ + 1 = 1.50321); y_3 = 1 / 1.50321.
//
// Trap (xtensor 0.24.3): x - xt::amax(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array softmax_forward(const Array& x) {
  throw tapegrad::exercise::NotImplemented("softmax_forward");
}

Array softmax_online_forward(const Array& x) {
  throw tapegrad::exercise::NotImplemented("softmax_online_forward");
}
