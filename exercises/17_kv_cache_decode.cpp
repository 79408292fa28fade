// Exercise 17: one KV-cache decode step
// 练习 17：KV cache 的一步解码
//
// Check it:   scripts/exercise.sh check kv_cache_decode        (--lang zh: 中文报告)
//
// One attention head generating one token at a time. The token at position t has the embedding x (d);
// GPT-2's learned position table pos (max_len, d) gives h = x + pos[t], and
// 一个注意力头逐个 token 生成。位置 t 的 token 的嵌入是 x (d)；GPT-2 式的可学习位置表 pos (max_len, d) 给出
// h = x + pos[t]，以及
//
//   q = h Wqᵀ      k = h Wkᵀ      v = h Wvᵀ          Wq, Wk (D, d), Wv (Dv, d)
//
// The cache holds the keys and values of positions 0..t−1: rows of cache.keys (max_len, D) and
// cache.values (max_len, Dv), cache.length = t of them filled. One decode step:
// cache 保存位置 0..t−1 的 key 和 value：cache.keys (max_len, D) 和 cache.values (max_len, Dv) 的行，
// 已填 cache.length = t 行。一步解码：
//
//   1. t = cache.length is the new token's position / 新 token 的位置是 t = cache.length
//   2. write k and v into row t, then cache.length = t + 1 / 把 k 和 v 写进第 t 行，然后 cache.length = t + 1
//   3. attend over rows 0..t, the new token included, with no mask (every cached position is in the past):
//      对第 0..t 行做注意力，包括新 token，不加掩码（缓存里的位置都在过去）：
//        y = softmax(q K[0..t]ᵀ / √D) V[0..t]        (subtract the max before exp / exp 之前减去最大值)
//
// Return y (Dv). Step after step from an empty cache, y is row t of the full causal forward
// Y = softmax(Q Kᵀ/√D + causal mask) V of the whole sequence: the grader checks exactly that.
// 返回 y (Dv)。从空 cache 开始一步一步解码，y 就是整个序列的完整因果前向 Y = softmax(Q Kᵀ/√D + 因果掩码) V
// 的第 t 行：检查器检查的正是这一点。
//
// Worked example / 例子: d = D = Dv = 1, Wq = Wk = Wv = [1], pos = 0, the tokens x = 1, then x = 2:
//   step 1: t = 0, k = v = 1 written at row 0:   y = 1
//   step 2: t = 1, k = v = 2 written at row 1:   scores 2·[1, 2] = [2, 4], P = [0.1192, 0.8808],
//           y = 0.1192·1 + 0.8808·2 = 1.8808
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;
using tapegrad::exercise::DecodeCache;

Array kv_cache_decode_step(DecodeCache& cache, const Array& x, const Array& pos, const Array& wq, const Array& wk,
                           const Array& wv) {
  throw tapegrad::exercise::NotImplemented("kv_cache_decode_step");  // return y;
}
