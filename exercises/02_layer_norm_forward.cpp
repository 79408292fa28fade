// Exercise 2: LayerNorm forward
// 练习 2：LayerNorm 前向
//
// Check it:   scripts/exercise.sh check layer_norm_forward        (--lang zh: 中文报告)
//
// Normalize each row of x (..., N) over its last axis, then scale by γ and shift by β (both of shape (N)):
// 对 x (..., N) 的每一行沿最后一个轴归一化，再乘 γ、加 β（形状都是 (N)）：
//
//   μ = (1/N) Σ_j x_j        σ² = (1/N) Σ_j (x_j − μ)²   (biased: N, not N − 1 / 有偏：除以 N)
//   y_j = γ_j (x_j − μ) / sqrt(σ² + ε) + β_j           (ε under the root / ε 在根号里)
//
// Worked example (the second seed): x = [3, 4, 5], γ = 1, β = 0 gives [-1.2247, 0, 1.2247].
// The grader also tries γ, β that are not 1 and 0, a large mean (1e6 + noise), constant rows and N = 1.
// 例子（第二篇种子文章）：x = [3, 4, 5]，γ = 1，β = 0 得到 [-1.2247, 0, 1.2247]。检查还会用 γ、β 不是 1 和 0、
// 大均值（1e6 + 噪声）、常数行和 N = 1 的输入。
//
// Plain loops or xtensor expressions over Array; no library ops. 用循环或 xtensor 实现，不用库算子。
//
// Trap (xtensor 0.24.3): x - xt::mean(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array layer_norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps) {
  throw tapegrad::exercise::NotImplemented("layer_norm_forward");
}
