// Exercise 21: sampling the next token: temperature, top-k, top-p
// 练习 21：采样下一个 token：温度、top-k、top-p
//
// Check it:   scripts/exercise.sh check sampling        (--lang zh: 中文报告)
//
// From a language model's logits z (V), the distribution Hugging Face's generate() samples from
// (do_sample=True), in its order:
// 从语言模型的 logits z (V) 得到 Hugging Face generate()（do_sample=True）采样用的分布，按它的顺序：
//
//   1. temperature T > 0:  p = softmax(z / T)          (subtract the max before exp / exp 之前减去最大值)
//      T = 0: greedy, all the mass on the argmax (the lowest index among ties) / 贪心：全部概率给 argmax（并列时取最小下标）
//   2. top_k = k > 0: keep the k most likely tokens (and any tied with the k-th), the others get 0, renormalise
//      保留概率最大的 k 个 token（以及与第 k 个并列的），其余为 0，重新归一化
//   3. top_p < 1: the smallest set of the most likely tokens whose probability reaches top_p, the token that
//      crosses top_p included; the others get 0, renormalise (never drop the most likely token)
//      概率最大的 token 组成的、总概率达到 top_p 的最小集合，越过 top_p 的那个 token 也包括在内；其余为 0，重新归一化
//
// sample_token draws one token with the uniform u in [0, 1) the grader gives (inverse CDF: the first i
// with p_0 + ... + p_i > u); T = 0 returns the argmax and ignores u. The grader checks the distribution
// of 4,000 draws (a chi-square test), not which token each u gives: any correct sampler passes.
// sample_token 用检查器给的 [0, 1) 均匀数 u 抽一个 token（逆 CDF：第一个满足 p_0 + ... + p_i > u 的 i）；T = 0 返回
// argmax，不用 u。检查器检查 4000 次抽样的分布（卡方检验），不检查每个 u 得到哪个 token：任何正确的采样都能通过。
//
// Worked example / 例子: z = [2, 1, 0, −1]
//   T = 1:               p = [0.6439, 0.2369, 0.0871, 0.0321]
//   T = 1, top_p = 0.8:  0.6439 < 0.8, 0.6439 + 0.2369 = 0.8808 crosses it: keep {0, 1}, p = [0.7311, 0.2689, 0, 0]
//   T = 0.5:             p = [0.8650, 0.1171, 0.0158, 0.0021]
//   T = 1, top_k = 1 (or T = 0):  p = [1, 0, 0, 0]
#include <cmath>
#include <string>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

Array sampling_probabilities(const Array& logits, double temperature, std::size_t top_k, double top_p) {
  throw tapegrad::exercise::NotImplemented("sampling_probabilities");  // return p;
}

std::size_t sample_token(const Array& logits, double temperature, std::size_t top_k, double top_p, double u) {
  throw tapegrad::exercise::NotImplemented("sample_token");  // return the token's index;
}
