#pragma once
// The types and checks of exercises 17-22 (a language model's parts: one KV-cache decode step, the
// SwiGLU FFN, LoRA, dropout and sampling; and a LLaMA block from them), beside exercise.hpp's, which includes this header at its end
// (a learner's file includes exercise.hpp alone). Each check is in exercises/grader/src/exercise_<name>.cpp.

#include <cstddef>
#include <functional>

#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise {

// ---- what the learner's functions take and return ----
// One head's cache of keys and values: rows 0..length−1 of keys (max_len, D) and values (max_len, Dv)
// are the positions decoded so far; the rows after them are not used yet.
struct DecodeCache {
  Array keys, values;
  std::size_t length = 0;
};
struct SwigluGrads {  // y = (silu(x W1ᵀ) ⊙ x W3ᵀ) W2ᵀ
  Array dx, dw1, dw3, dw2;
};
// y = x Wᵀ + (alpha/r) x Aᵀ Bᵀ: W is frozen, so dw stays as it is constructed (no gradient: an
// all-zero dw of any shape counts as none too).
struct LoraGrads {
  Array dx, da, db, dw;
};
// A LLaMA decoder block's weights, nn.Linear's layout (out, in), no biases: the two RMSNorms' weights (d),
// the attention's projections wq (H·D, d), wk and wv (Hkv·D, d), wo (d, H·D), and the SwiGLU FFN's
// w1 (gate) and w3 (up) (hidden, d), w2 (d, hidden).
struct LlamaBlockWeights {
  Array attention_norm, wq, wk, wv, wo;
  Array ffn_norm, w1, w3, w2;
};

// ---- the signatures the exercises fix ----
using KvCacheDecodeStep = std::function<Array(DecodeCache& cache, const Array& x, const Array& pos, const Array& wq,
                                              const Array& wk, const Array& wv)>;
using SwigluForward = std::function<Array(const Array& x, const Array& w1, const Array& w3, const Array& w2)>;
using SwigluBackward = std::function<SwigluGrads(const Array& dy, const Array& x, const Array& w1, const Array& w3,
                                                 const Array& w2)>;
using LoraForward = std::function<Array(const Array& x, const Array& w, const Array& a, const Array& b, double alpha)>;
using LoraBackward = std::function<LoraGrads(const Array& dy, const Array& x, const Array& w, const Array& a,
                                             const Array& b, double alpha)>;
using LoraMerge = std::function<Array(const Array& w, const Array& a, const Array& b, double alpha)>;
using DropoutForward = std::function<Array(const Array& x, const Array& mask, double p, bool training)>;
using DropoutBackward = std::function<Array(const Array& dy, const Array& mask, double p, bool training)>;
using SamplingProbabilities = std::function<Array(const Array& logits, double temperature, std::size_t top_k,
                                                  double top_p)>;
using SampleToken = std::function<std::size_t(const Array& logits, double temperature, std::size_t top_k,
                                              double top_p, double u)>;
// x (B, S, d) -> (B, S, d); num_kv_heads divides num_heads; eps the RMSNorms', rope_base RoPE's.
using LlamaBlockForward = std::function<Array(const Array& x, const LlamaBlockWeights& weights, std::size_t num_heads,
                                              std::size_t num_kv_heads, double eps, double rope_base)>;

// ---- the checks ----
Report check_kv_cache_decode(KvCacheDecodeStep step, const Options& options = {});
Report check_swiglu(SwigluForward forward, SwigluBackward backward, const Options& options = {});
Report check_lora(LoraForward forward, LoraBackward backward, LoraMerge merge, const Options& options = {});
Report check_dropout(DropoutForward forward, DropoutBackward backward, const Options& options = {});
Report check_sampling(SamplingProbabilities probabilities, SampleToken sample, const Options& options = {});
Report check_llama_block(LlamaBlockForward forward, const Options& options = {});

}  // namespace tapegrad::exercise
