#pragma once
// tapegrad::exercise, exercises 11 to 16 (the LLM parts): softmax forward (safe and online), cross-entropy,
// multi-head attention with masks and its backward, grouped-query attention, RoPE. The signatures the
// exercises fix and their checks; included by tapegrad_grader/exercise.hpp, so a learner's file includes that one.

#include <cstdint>
#include <functional>
#include <vector>

#include "tapegrad_grader/exercise.hpp"  // Options, Report, AttentionGrads (it includes this file at its end)
#include "tapegrad/ops/rotary_embedding.hpp"  // tapegrad::RopeStyle: interleaved or half_split

namespace tapegrad::exercise {

// 11: softmax over the last axis, the safe form and the online (one pass for max and sum) form.
using SoftmaxForward = std::function<Array(const Array& x)>;
// 12: logits (N, C), N targets; the mean over the targets that are not ignore_index.
using CrossEntropyForward =
    std::function<double(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index)>;
using CrossEntropyBackward =
    std::function<Array(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index)>;
// 13, 14: q, k, v (B, S, d) split into `heads` heads; causal; key padding: lengths[b] keys of sequence b are real.
using MultiHeadAttentionForward = std::function<Array(const Array& q, const Array& k, const Array& v, std::size_t heads,
                                                      bool causal, const std::vector<std::size_t>& lengths)>;
using MultiHeadAttentionBackward =
    std::function<AttentionGrads(const Array& dy, const Array& q, const Array& k, const Array& v, std::size_t heads,
                                 bool causal, const std::vector<std::size_t>& lengths)>;
// 15: q (B, H, S, D), k and v (B, Hkv, S, D), H a multiple of Hkv.
using GroupedQueryAttentionForward =
    std::function<Array(const Array& q, const Array& k, const Array& v, bool causal)>;
// 16: x (..., S, D), positions of length S.
using RopeForward = std::function<Array(const Array& x, const std::vector<std::int64_t>& positions, double base,
                                        RopeStyle style)>;
using RopeBackward = std::function<Array(const Array& dy, const std::vector<std::int64_t>& positions, double base,
                                         RopeStyle style)>;

Report check_softmax(SoftmaxForward safe, SoftmaxForward online, const Options& options = {});
Report check_cross_entropy(CrossEntropyForward forward, CrossEntropyBackward backward, const Options& options = {});
Report check_multi_head_attention(MultiHeadAttentionForward forward, const Options& options = {});
Report check_multi_head_attention_backward(MultiHeadAttentionBackward backward, const Options& options = {});
Report check_grouped_query_attention(GroupedQueryAttentionForward forward, const Options& options = {});
// The styles the learner's functions implement (a style whose call throws NotImplemented is not graded).
Report check_rope(RopeForward forward, RopeBackward backward, const Options& options = {});

}  // namespace tapegrad::exercise
