// Exercise 20: dropout forward and backward, the mask given
// 练习 20：dropout 的前向和反向（掩码已给定）
//
// Check it:   scripts/exercise.sh check dropout        (--lang zh: 中文报告)
//
// Inverted dropout, as torch.nn.functional.dropout. The grader draws the mask for you: mask has x's
// shape, 1 where the entry is kept (probability 1 − p) and 0 where it is dropped.
// 反向缩放（inverted）的 dropout，同 torch.nn.functional.dropout。掩码由检查器抽取：mask 与 x 同形状，
// 保留的位置为 1（概率 1 − p），丢弃的位置为 0。
//
//   training:   y = x ⊙ mask / (1 − p)      dx = dy ⊙ mask / (1 − p)     (the same mask / 同一个掩码)
//               p = 1: everything dropped, y = 0 and dx = 0 (no division by 0) / 全部丢弃，y = 0，dx = 0（不要除以 0）
//   eval (training = false):   y = x, dx = dy: the mask is ignored / 评估模式：忽略掩码
//
// The 1/(1 − p) keeps E[y] = x, so eval mode needs no rescaling.
// 1/(1 − p) 使 E[y] = x，所以评估时不需要再缩放。
//
// Worked example / 例子: x = [1, 2, 3, 4], mask = [1, 0, 1, 1], p = 0.25:
//   y = [1, 0, 3, 4] / 0.75 = [1.3333, 0, 4, 5.3333];   dy = [1, 1, 1, 1]: dx = [1.3333, 0, 1.3333, 1.3333]
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array dropout_forward(const Array& x, const Array& mask, double p, bool training) {
  throw tapegrad::exercise::NotImplemented("dropout_forward");
}

Array dropout_backward(const Array& dy, const Array& mask, double p, bool training) {
  throw tapegrad::exercise::NotImplemented("dropout_backward");  // return dx;
}
