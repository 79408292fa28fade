// Exercise 14: multi-head attention backward, with the causal and the padding masks
// 练习 14：多头注意力反向，带因果掩码和填充掩码
//
// Check it:   scripts/exercise.sh check multi_head_attention_backward        (--lang zh: 中文报告)
//
// The forward of exercise 13: q, k, v (B, S, d), H heads of Dh = d / H features, per batch b and head h
//   S_h = q_h k_hᵀ / √Dh (−∞ where masked),   P = softmax(S_h) per row,   y_h = P v_h.
// Given dy (B, S, d), return {dq, dk, dv}, each (B, S, d). Recompute P first (subtract each row's max: the
// grader has large scores). Per (b, h), exactly as exercise 9:
// 给定 dy (B, S, d)，返回 {dq, dk, dv}，形状都是 (B, S, d)。先重新计算 P（减去每行的最大值：检查器有大分数的用例）。
// 对每个 (b, h)，和练习 9 一样：
//   dv = Pᵀ dy      dP = dy vᵀ      dS = P ⊙ (dP − rowsum(dP ⊙ P))      dq = dS k / √Dh      dk = dSᵀ q / √Dh
// A masked entry has P = 0, so it passes no gradient. 被掩掉的位置 P = 0，不传梯度。
//
// Worked example 例子:  B = 1, S = 2, d = 2, H = 1, q = k = [[1, 0], [0, 1]], v = [[1, 2], [3, 4]], causal,
//   dy = [[1, 0], [0, 1]]:  P = [[1, 0], [0.330238, 0.669762]],  dv = Pᵀ dy = [[1, 0.330238], [0, 0.669762]],
//   dq = [[0, 0], [−0.312797, 0.312797]],  dk = [[0, −0.312797], [0, 0.312797]].
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AttentionGrads;

AttentionGrads multi_head_attention_backward(const Array& dy, const Array& q, const Array& k, const Array& v,
                                             std::size_t heads, bool causal, const std::vector<std::size_t>& lengths) {
  throw tapegrad::exercise::NotImplemented("multi_head_attention_backward");  // return {dq, dk, dv};
}
