#pragma once
// Scaled dot-product attention as one op with its backward written out (like layer_norm),
// and the same computation composed from primitives (namespace composed) as the reference:
//
//   scores = q kᵀ / √Dh  (+ mask),   P = softmax(scores) over the keys,   y = P v
//
// Layout as torch.nn.functional.scaled_dot_product_attention: q (..., Sq, Dh),
// k (..., Sk, Dh), v (..., Sk, Dv) -> y (..., Sq, Dv). The leading axes are the batch,
// (B, H) for multi-head attention or (B) for one head, and must be equal in q, k and v.
// causal: query i sees keys j <= i only (PyTorch's is_causal: the mask is the lower
// triangle of an (Sq, Sk) matrix of ones, aligned at the top left).

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal = false);

// The backward of the fused op, from dy and the attention probabilities P it saved.
void scaled_dot_product_attention_backward(const Array& dy, const Tensor& q, const Tensor& k, const Tensor& v,
                                           const Array& probs);

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
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal = false);
}  // namespace composed

}  // namespace tapegrad
