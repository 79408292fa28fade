// Exercise 4: RMSNorm forward and backward
// 练习 4：RMSNorm 前向和反向
//
// Check it:   scripts/exercise.sh check rms_norm        (--lang zh: 中文报告)
//
// RMSNorm only controls the scale: no mean is subtracted and there is no β.
// RMSNorm 只控制尺度：不减均值，也没有 β。
//
//   rms = sqrt((1/N) Σ_j x_j² + ε)      x̂ = x / rms      y = γ ⊙ x̂          (over the last axis)
//   backward, g = γ ⊙ dy:  dx = (g − x̂ · mean(g ⊙ x̂)) / rms      dγ = Σ_rows dy ⊙ x̂
//
// Example: x = [3, 4, 5], γ = 1 gives [0.7348, 0.9798, 1.2247] (LayerNorm would give [-1.22, 0, 1.22]).
// rms_norm_backward returns {dx, dgamma, {}}: dbeta stays empty. 例子：x = [3, 4, 5] 得到 [0.7348, 0.9798, 1.2247]。
//
// Trap (xtensor 0.24.3): x - xt::mean(x, {1}, xt::keep_dims), or an xtensor expression held in `auto`, reads
// past its buffer. Assign the reduction to a Array first, or pass xt::evaluation_strategy::immediate.
// 陷阱：表达式里的惰性 keep_dims 归约、存进 auto 的 xtensor 表达式会越界读取。先把归约赋给 Array。
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::NormGrads;

Array rms_norm_forward(const Array& x, const Array& gamma, double eps) {
  throw tapegrad::exercise::NotImplemented("rms_norm_forward");
}

NormGrads rms_norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps) {
  throw tapegrad::exercise::NotImplemented("rms_norm_backward");  // return {dx, dgamma, {}};
}
