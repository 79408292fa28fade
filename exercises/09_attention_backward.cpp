// Exercise 9: single-head attention backward
// 练习 9：单头注意力反向
//
// Check it:   scripts/exercise.sh check attention_backward        (--lang zh: 中文报告)
//
// q (Sq, D), k (Sk, D), v (Sk, Dv), no mask:   S = q kᵀ / √D,   P = softmax(S) per row,   y = P v.
// Given dy (Sq, Dv), return {dq, dk, dv}. Recompute P first (subtract each row's max before exp).
// 给定 dy (Sq, Dv)，返回 {dq, dk, dv}。先重新计算 P（exp 之前减去每行的最大值）。
//
//   dv = Pᵀ dy      dP = dy vᵀ      dS = P ⊙ (dP − rowsum(dP ⊙ P))   (exercise 8, row by row)
//   dq = dS k / √D      dk = dSᵀ q / √D
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::AttentionGrads;

AttentionGrads attention_backward(const Array& dy, const Array& q, const Array& k, const Array& v) {
  throw tapegrad::exercise::NotImplemented("attention_backward");  // return {dq, dk, dv};
}
