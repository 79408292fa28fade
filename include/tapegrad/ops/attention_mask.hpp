#pragma once
// Masks for scaled_dot_product_attention (ops/attention.hpp), as PyTorch's attn_mask:
//   AttentionMask::boolean(allowed)  1 (true) = the query may attend to that key, 0 = it may not
//   AttentionMask::additive(bias)    added to the scaled scores before the softmax (−∞ = may not)
// The mask's shape broadcasts over the leading axes of the scores (..., Sq, Sk), aligned at the
// right as numpy does: (Sq, Sk), (B, 1, Sq, Sk), (B, H, Sq, Sk), (B, 1, 1, Sk) for padding, ...

#include <cstddef>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

struct AttentionMask {
  enum class Kind { none, boolean, additive };
  Kind kind = Kind::none;  // none: every key visible
  Array values;            // 0/1 for boolean, the bias for additive

  static AttentionMask boolean(Array allowed) { return {Kind::boolean, std::move(allowed)}; }
  static AttentionMask additive(Array bias) { return {Kind::additive, std::move(bias)}; }
  bool empty() const { return kind == Kind::none; }
};

// Which way a causal mask lines up when Sq != Sk.
//   bottom_right: the queries are the LAST Sq of the Sk positions; query i sees keys j <= i + Sk − Sq.
//                 What a KV cache needs (the new tokens come after the cached ones); tapegrad's is_causal.
//   top_left:     query i sees keys j <= i, the lower triangle of ones(Sq, Sk): PyTorch's is_causal.
// Both are the same for Sq == Sk.
enum class CausalAlignment { bottom_right, top_left };

// (Sq, Sk) of 0/1, 1 where query i may attend to key j.
Array causal_mask(std::size_t sq, std::size_t sk, CausalAlignment alignment = CausalAlignment::bottom_right);

// Key padding for right-padded sequences: (B, 1, 1, S) of 0/1, 1 at positions < lengths[b].
// Errors if a length exceeds S.
Array padding_mask(const std::vector<std::size_t>& lengths, std::size_t s);

}  // namespace tapegrad
