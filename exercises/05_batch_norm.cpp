// Exercise 5: BatchNorm (training mode, features last) forward and backward
// 练习 5：BatchNorm（训练模式，特征在最后一维）前向和反向
//
// Check it:   scripts/exercise.sh check batch_norm        (--lang zh: 中文报告)
//
// x (..., C): the features are the LAST axis; the statistics of feature c are over every other axis
// (all rows), with the biased variance. γ, β have shape (C). The opposite axis to LayerNorm's.
// x (..., C)：特征在最后一个轴；特征 c 的统计量沿其余所有轴（所有行）计算，用有偏方差。γ、β 的形状是 (C)。
// 与 LayerNorm 的轴正好相反。
//
//   per feature c, over the M rows:  μ_c, σ_c = sqrt(σ²_c + ε), x̂ = (x − μ_c)/σ_c,  y = γ_c x̂ + β_c
//   backward, g = γ ⊙ dy, means over the rows:  dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / σ
//                                               dγ = Σ_rows dy ⊙ x̂      dβ = Σ_rows dy
//
// Example: x = [[3], [4], [5]] (a batch of 3, C = 1) gives [[-1.2247], [0], [1.2247]].
//
// Trap (xtensor 0.24.3): x - xt::mean(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

Array batch_norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps) {
  throw tapegrad::exercise::NotImplemented("batch_norm_forward");
}

NormGrads batch_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  throw tapegrad::exercise::NotImplemented("batch_norm_backward");  // return {dx, dgamma, dbeta};
}
