// Exercise 13: multi-head attention forward, with the causal and the padding masks
// 练习 13：多头注意力前向，带因果掩码和填充掩码
//
// Check it:   scripts/exercise.sh check multi_head_attention        (--lang zh: 中文报告)
//
// q, k, v (B, S, d), already projected; H = heads, Dh = d / H. Split each into heads: (B, S, d) -> (B, S, H, Dh)
// -> transpose to (B, H, S, Dh) (head h takes features h·Dh .. h·Dh + Dh − 1 of every position). Per batch b and
// head h:
//   scores = q_h k_hᵀ / √Dh   (S, S);   masked entries set to −∞ BEFORE the softmax;
//   P = softmax(scores) per row;   y_h = P v_h;   then heads back side by side: y (B, S, d).
// Masks: causal, query i sees keys j ≤ i; padding, key j of sequence b is real when j < lengths[b] (the pads
// are on the right; lengths has B entries). Both may be on at once; neither leaves a query with no key.
// q、k、v 形状 (B, S, d)，已做过投影；H = heads，Dh = d / H。拆成多头：(B, S, d) -> (B, S, H, Dh) -> 转置为
// (B, H, S, Dh)（第 h 个头取每个位置的第 h·Dh .. h·Dh + Dh − 1 个特征）。对每个 batch b 和头 h：
//   scores = q_h k_hᵀ / √Dh (S, S)；被掩掉的位置在 softmax 之前设为 −∞；P = 每行 softmax(scores)；y_h = P v_h；
//   再把各头并排拼回 y (B, S, d)。
// 掩码：因果掩码，query i 只看 key j ≤ i；填充掩码，序列 b 的 key j 在 j < lengths[b] 时是真实的（填充在右边；
// lengths 有 B 项）。两者可以同时打开；都不会让某个 query 一个 key 也看不到。
//
// Worked example 例子:  B = 1, S = 2, d = 2, H = 1, q = k = [[1, 0], [0, 1]], v = [[1, 2], [3, 4]], causal:
//   row 0 sees key 0 only: y_0 = [1, 2];  row 1: scores [0, 1/√2], P = [0.330238, 0.669762], y_1 = [2.33952, 3.33952].
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array multi_head_attention_forward(const Array& q, const Array& k, const Array& v, std::size_t heads, bool causal,
                                   const std::vector<std::size_t>& lengths) {
  throw tapegrad::exercise::NotImplemented("multi_head_attention_forward");  // y (B, S, d)
}
