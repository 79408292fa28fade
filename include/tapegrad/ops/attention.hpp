#pragma once
// Scaled dot-product attention as one op with its backward written out (like layer_norm),
// and the same computation composed from primitives (namespace composed) as the reference:
//
//   scores = q kᵀ / √Dh  (+ mask),   P = softmax(scores) over the keys,   y = P v
//
// Layout as torch.nn.functional.scaled_dot_product_attention: q (..., Sq, Dh),
// k (..., Sk, Dh), v (..., Sk, Dv) -> y (..., Sq, Dv). The leading axes are the batch,
// (B, H) for multi-head attention or (B) for one head, and must be equal in q, k and v.
//
// is_causal (the AttentionMask overload): query i sees the keys at or before its own position. With Sq != Sk the
// queries are the LAST Sq of the Sk positions (bottom-right aligned): query i sees keys
// j <= i + Sk − Sq. That is what a KV cache needs: the new tokens come after the cached ones.
// PyTorch's is_causal is aligned at the top left instead (tril of ones(Sq, Sk): query i sees j <= i);
// for PyTorch's mask pass AttentionMask::boolean(causal_mask(Sq, Sk, CausalAlignment::top_left)).
// The two agree when Sq == Sk.
//
// attn_mask (ops/attention_mask.hpp): boolean (1 = may attend) or additive, broadcast over the
// leading axes of the scores (..., Sq, Sk). scale: default 1/√Dh; a NaN or infinite scale is an Error.
// A query whose keys are all masked (a fully masked row) attends to nothing: its output row is 0 and
// it passes no gradient to q, k or v. (PyTorch gives NaN for such a row: softmax of all −∞.)

#include <optional>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/attention_mask.hpp"

namespace tapegrad {

// The bool overload keeps PyTorch's top-left causal (query i sees keys j <= i) for its callers;
// the AttentionMask overload's is_causal is bottom-right (below).
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal = false);
// As torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask, is_causal=, scale=),
// except that is_causal is bottom-right aligned (above).
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& attn_mask,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt);

// The backward of the fused op, from dy, the attention probabilities P it saved and the scale.
void scaled_dot_product_attention_backward(const Array& dy, const Tensor& q, const Tensor& k, const Tensor& v,
                                           const Array& probs, double scale);

// Multi-head self-attention on a packed projection, as nn::SelfAttention uses it:
// qkv (B, S, 3d) = [q | k | v] along the features, each of q, k, v split into `heads` heads of
// d / heads features; y (B, S, d) = the heads' scaled_dot_product_attention side by side.
// The op calls the implementation that the run-time switch kernels::use_fast_kernels picks (it starts
// as the CMake option TAPEGRAD_FAST_KERNELS; tests and gdb may flip it):
Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal = false);

// The two implementations, both always compiled (the tests compare them):
namespace kernels::reference {
// Read this one: narrow out q, k, v; reshape (B, S, d) -> (B, S, H, Dh) and transpose to
// (B, H, S, Dh); the fused scaled_dot_product_attention; transpose and reshape back. Twelve tape
// entries, each layout change a copy.
Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal = false);
}  // namespace kernels::reference

namespace kernels::fast {
// The same products in the same order as one tape entry (src/ops/fast/attention_fast.cpp):
// BLAS reads each head of q, k, v inside qkv (leading dimension 3d) and writes each head's output
// into its columns of y (leading dimension d), so no layout is ever copied. The same bits as
// reference:: (tests/ops/test_fast_attention.cpp).
Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal = false);
void multi_head_attention_backward(const Array& dy, const Tensor& qkv, std::size_t heads, const Array& probs);
}  // namespace kernels::fast

namespace composed {
// The same from batched_matmul, transpose, mul (by 1/√Dh), add (a mask of 0 and −∞, as
// PyTorch's masked_fill(-inf)) and softmax: five or six tape entries, backward by autograd.
// Under anomaly mode the −∞ of the causal mask is reported as an anomaly; the fused op has none.
// A fully masked row gets bias 0 and its probabilities are multiplied by 0 (one more mul), so it
// gives the fused op's zeros rather than softmax's NaN.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal = false);
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& attn_mask,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt);
}  // namespace composed

}  // namespace tapegrad
