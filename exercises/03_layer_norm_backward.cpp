// Exercise 3: LayerNorm backward
// 练习 3：LayerNorm 反向
//
// Check it:   scripts/exercise.sh check layer_norm_backward        (--lang zh: 中文报告)
//
// Given dy = dL/dy for y = LayerNorm(x) over the last axis (exercise 2), return {dx, dgamma, dbeta}.
// Recompute μ, σ = sqrt(σ² + ε) and x̂ = (x − μ)/σ from x. With g = γ ⊙ dy, per row:
// 给定 y = LayerNorm(x)（沿最后一个轴，练习 2）的 dy = dL/dy，返回 {dx, dgamma, dbeta}。从 x 重新算出 μ、
// σ = sqrt(σ² + ε) 和 x̂ = (x − μ)/σ。令 g = γ ⊙ dy，每一行：
//
//   dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / σ       (mean over the row's N entries)
//   dγ = Σ_rows dy ⊙ x̂      dβ = Σ_rows dy         (shape (N): γ is shared by every row)
//
// The three terms of dx: the direct path, the path through μ, the path through σ. The grader uses a
// random (non-uniform) dy: the gradient of sum(LN(x)) is zero and would hide every mistake.
// dx 的三项分别是：直接路径、经过 μ 的路径、经过 σ 的路径。检查用的是随机（不均匀）的 dy：sum(LN(x)) 的梯度为零，
// 会掩盖所有错误。
//
// Trap (xtensor 0.24.3): x - xt::mean(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

NormGrads layer_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  throw tapegrad::exercise::NotImplemented("layer_norm_backward");  // return {dx, dgamma, dbeta};
}
