// Exercise 10: one Adam step
// 练习 10：Adam 的一步更新
//
// Check it:   scripts/exercise.sh check adam_step        (--lang zh: 中文报告)
//
// Return the state after one update of parameter p with gradient g (torch.optim.Adam, no weight decay).
// state.step counts the updates so far (0 at the start); m and v start at 0. The grader calls your
// function once per gradient, from a zero state, and compares p, m, v and step after the last call.
// 返回参数 p 用梯度 g 更新一步之后的状态（torch.optim.Adam，无权重衰减）。state.step 是已经更新的次数（开始时为 0）；
// m 和 v 从 0 开始。检查会对每个梯度调用一次你的函数，并比较最后的 p、m、v 和 step。
//
//   t = step + 1
//   m = β1 m + (1 − β1) g          v = β2 v + (1 − β2) g²
//   m̂ = m / (1 − β1^t)             v̂ = v / (1 − β2^t)          (bias corrections / 偏差修正)
//   p = p − lr · m̂ / (sqrt(v̂) + ε)                           (ε outside the root / ε 在根号外)
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AdamState;

AdamState adam_step(const AdamState& state, const Array& grad, double lr, double beta1, double beta2, double eps) {
  throw tapegrad::exercise::NotImplemented("adam_step");  // return the new {param, m, v, step};
}
