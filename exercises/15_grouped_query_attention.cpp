// Exercise 15: grouped-query attention forward (GQA, and MQA: one key/value head)
// 练习 15：分组查询注意力前向（GQA，以及只有一个 key/value 头的 MQA）
//
// Check it:   scripts/exercise.sh check grouped_query_attention        (--lang zh: 中文报告)
//
// q (B, H, S, D), k and v (B, Hkv, S, D) with fewer heads: Hkv divides H, n_rep = H / Hkv. Consecutive query
// heads share a key/value head: query head h reads kv head h / n_rep (integer division), as LLaMA's repeat_kv =
// torch.repeat_interleave(k, n_rep, dim=1). Per batch b and query head h, with g = h / n_rep:
//   y[b, h] = softmax(q[b, h] k[b, g]ᵀ / √D) v[b, g]   (causal: query i sees keys j ≤ i);   y (B, H, S, D).
// Not torch's repeat (tiling, k.repeat(1, n_rep, 1, 1)): that gives head h the kv head h % Hkv.
// q (B, H, S, D)，k 和 v (B, Hkv, S, D) 的头更少：Hkv 整除 H，n_rep = H / Hkv。相邻的 query 头共用一个 key/value 头：
// query 头 h 读 kv 头 h / n_rep（整数除法），即 LLaMA 的 repeat_kv = torch.repeat_interleave(k, n_rep, dim=1)。
// 对每个 batch b 和 query 头 h，g = h / n_rep：y[b, h] = softmax(q[b, h] k[b, g]ᵀ / √D) v[b, g]
// （因果：query i 只看 key j ≤ i）；y (B, H, S, D)。不是 torch 的 repeat（平铺）：那样头 h 读的是 kv 头 h % Hkv。
//
// Worked example 例子:  H = 4, Hkv = 2 (n_rep = 2): query heads 0, 1 read kv head 0; heads 2, 3 read kv head 1
//   (tiling would give 0, 1, 0, 1). With S = 1 each y[b, h] is v[b, h / n_rep] itself.
//   H = 4，Hkv = 2：query 头 0、1 读 kv 头 0，头 2、3 读 kv 头 1（平铺会给出 0、1、0、1）。
#include <cmath>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array grouped_query_attention_forward(const Array& q, const Array& k, const Array& v, bool causal) {
  throw tapegrad::exercise::NotImplemented("grouped_query_attention_forward");  // y (B, H, S, D)
}
