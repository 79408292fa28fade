#pragma once
// Picking the next token from a language model's logits: temperature, top-k, top-p (nucleus)
// and one draw, as Hugging Face generate() does with do_sample=True.
//
// Here with the ops because, like torch.argmax and torch.multinomial, these are functions of a
// tensor's values; unlike the other ops they are not differentiable and record nothing on the tape.
//
// The distribution, for logits z (V entries), in Hugging Face's warper order:
//   1. temperature T:  z ← z / T            (T = 0: greedy, all mass on the argmax, the lowest
//                                             index among ties, as torch.argmax)
//   2. top_k = k > 0:  entries below the k-th largest become −inf (ties with the k-th are kept,
//                      as TopKLogitsWarper)
//   3. top_p = p < 1:  TopPLogitsWarper's rule: sort ascending, take the running sum of
//                      softmax probabilities, drop every entry whose running sum is ≤ 1 − p,
//                      never the largest. In words: keep the smallest set of the most likely
//                      tokens whose probability reaches p, the token that crosses p included.
//   4. softmax of what is left.
// Among equal logits the lower index ranks higher (it is kept first by top-p).

#include <cstdint>
#include <vector>

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

struct SamplingOptions {
  double temperature = 1.0;  // ≥ 0; 0 = greedy (argmax)
  std::size_t top_k = 0;     // 0 = off; at most V
  double top_p = 1.0;        // in (0, 1]; 1 = off
};

// The distribution that sample() draws from: logits (V) → probabilities (V), or (B, V) → one
// distribution per row. Errors: empty logits, a NaN or +inf logit, all logits −inf, temperature < 0,
// top_p outside (0, 1], top_k > V, a tensor that is not 1-d or 2-d.
Array sampling_probabilities(const Tensor& logits, const SamplingOptions& options = {});

// One token index from logits (V). One gen.uniform() draw (inverse CDF over the probabilities
// above), none when temperature = 0.
std::int64_t sample(const Tensor& logits, const SamplingOptions& options = {}, Generator& gen = default_generator());

// One index per row of logits (B, V), rows in order (row i uses the i-th draw).
std::vector<std::int64_t> sample_rows(const Tensor& logits, const SamplingOptions& options = {},
                                      Generator& gen = default_generator());

}  // namespace tapegrad
