// Exercise 12: cross-entropy forward and backward (stable, with ignore_index)
// 练习 12：交叉熵的前向和反向（数值稳定，带 ignore_index）
//
// Check it:   scripts/exercise.sh check cross_entropy        (--lang zh: 中文报告)
//
// logits z (N, C), targets t (N class indices). A row whose target is ignore_index (a padding token: −100, or
// a class id such as 0) counts for nothing. With n = the number of counted rows:
//   L = (1/n) Σ_{counted i} ( logsumexp(z_i) − z_i[t_i] ),   logsumexp(z) = m + log Σ_c exp(z_c − m),  m = max_c z_c
//   dL/dz_i = (softmax(z_i) − onehot(t_i)) / n  for a counted row, 0 for an ignored row.
// logits z (N, C)，目标 t（N 个类别下标）。目标等于 ignore_index 的行（填充符：−100，或者某个类别 id，比如 0）
// 不计入。n 为计入的行数：
//   L = (1/n) Σ_{计入的 i} ( logsumexp(z_i) − z_i[t_i] )，logsumexp(z) = m + log Σ_c exp(z_c − m)，m = max_c z_c
//   dL/dz_i = (softmax(z_i) − onehot(t_i)) / n（计入的行），被忽略的行为 0。
// Without m, exp(z) overflows for logits near 1000 (the grader has such a case). The mean is over the counted
// rows, n, not over N. 不减 m 的话，logits 接近 1000 时 exp(z) 会溢出（检查器有这样的用例）。平均是对计入的 n 行，不是 N 行。
//
// Worked example 例子:  z = [[1, 2, 3], [1, 1, 1]], t = [2, −100], ignore_index = −100:
//   L = logsumexp(1, 2, 3) − 3 = 0.407606 (n = 1);   dz = [[0.0900306, 0.244728, −0.334759], [0, 0, 0]].
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

double cross_entropy_forward(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index) {
  throw tapegrad::exercise::NotImplemented("cross_entropy_forward");
}

Array cross_entropy_backward(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index) {
  throw tapegrad::exercise::NotImplemented("cross_entropy_backward");  // dL/dlogits, shape (N, C)
}
