#pragma once
// Rotary position embedding (RoPE, Su et al. 2021, "RoFormer"): each pair of features of a
// query or key row is rotated by an angle proportional to the row's position, so that
// q_m · k_n after the rotation depends on the positions only through m − n.
//
//   θ_i = base^(−2i/D),  i = 0 .. D/2 − 1;   angle = pos · θ_i
//   each pair (a, b) -> (a cos(angle) − b sin(angle), a sin(angle) + b cos(angle))
//
// Two conventions pair the features differently (same θ_i, same rotation):
//   interleaved: pairs (2i, 2i + 1), as the RoFormer paper and Meta's LLaMA code
//                (torch.view_as_complex of x.reshape(..., D/2, 2) times exp(i·angle));
//   half_split:  pairs (i, i + D/2), as GPT-NeoX and Hugging Face transformers
//                (apply_rotary_pos_emb: x·cos + rotate_half(x)·sin).
// The default is half_split: Hugging Face's code is what most learners read. The two agree up
// to a permutation of the last axis (rope_half_split_order below).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

enum class RopeStyle { interleaved, half_split };

// x of shape (..., S, D), D even (attention's (B, H, S, Dh) for one), positions of length S:
// the absolute position of each row along S (a cached decode step passes offset .. offset + S − 1,
// position_range(offset, S)). Negative positions are allowed: a rotation by a negative angle is
// well defined and the relative property holds for them too. base > 0.
Tensor rotary_embedding(const Tensor& x, const std::vector<std::int64_t>& positions, double base = 10000.0,
                        RopeStyle style = RopeStyle::half_split);

// offset, offset + 1, ..., offset + count − 1.
std::vector<std::int64_t> position_range(std::int64_t offset, std::size_t count);

// The angles pos · θ_i, θ_i = base^(−2i/D): shape (S, D/2), row s for positions[s].
Array rotary_angles(const std::vector<std::int64_t>& positions, std::size_t D, double base);

// The order that takes the interleaved layout to the half_split one: slot j of the half_split
// layout holds feature order[j] of the interleaved one, order = (0, 2, 4, ..., 1, 3, 5, ...), so that
// pair (2i, 2i + 1) lands on (i, i + D/2). With x' = x[..., order]:
//   rotary_embedding(x', half_split) = rotary_embedding(x, interleaved)[..., order].
// Permuting q and k alike leaves every q·k unchanged, so a q/k projection whose weight rows are
// permuted this way (within each head) gives the same attention scores under half_split as the
// original weights under interleaved: this is what Hugging Face's convert_llama_weights_to_hf.py
// does to Meta's wq and wk (its permute()).
std::vector<std::size_t> rope_half_split_order(std::size_t D);

// The backward of rotary_embedding: the rotation by −angle of each pair of dy (see the .cpp).
void rotary_embedding_backward(const Array& dy, const Tensor& x, const Array& angles, RopeStyle style);

namespace composed {
// half_split RoPE from primitive ops, as Hugging Face writes it: x·cos + rotate_half(x)·sin, with
// rotate_half(x) = cat(−x2, x1) for the halves x1, x2 (narrow; the cat as matmuls with constant
// placement matrices). Every step is its own tape entry; autograd gives the backward.
Tensor rotary_embedding(const Tensor& x, const std::vector<std::int64_t>& positions, double base = 10000.0);
}  // namespace composed

}  // namespace tapegrad
