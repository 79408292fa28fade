#pragma once
// The row-wise pieces of attention shared by scaled_dot_product_attention (attention.cpp), the
// packed multi-head kernel (fast/attention_fast.cpp) and grouped_query_attention, so that all compute
// the same bits (internal header of src/ops).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/attention_mask.hpp"

namespace tapegrad::kernels {

// The sizes of a packed (B, S, 3d) projection split into `heads` heads of head_dim features.
struct PackedHeads {
  std::size_t batch, seq, d, heads, head_dim;
};
// Checks qkv and heads (attention.cpp); the error names `op`, the shape and what was expected.
PackedHeads check_packed_heads(const std::string& op, const Tensor& qkv, std::size_t heads);

// The factor of the scores q kᵀ: the caller's scale, or 1/√Dh; a NaN or infinite one is an Error naming `op`
// and q (attention.cpp).
double scores_scale(const std::string& op, const Tensor& q, std::optional<double> scale, std::size_t dh);

// How many keys query i sees: all of them, or under the causal mask keys 0..i.
inline std::size_t visible_keys(bool causal, std::size_t i, std::size_t sk) {
  return causal ? std::min(sk, i + 1) : sk;
}

// May query i (of Sq) attend to key j (of Sk) under the causal mask? Bottom right: the queries are
// the last Sq positions, so query i sits at position i + Sk − Sq and sees keys j <= i + Sk − Sq
// (written j + Sq <= i + Sk to stay unsigned). Top left (PyTorch's is_causal): keys j <= i.
inline bool causal_allows(bool bottom_right, std::size_t i, std::size_t j, std::size_t sq, std::size_t sk) {
  return bottom_right ? j + sq <= i + sk : j <= i;
}

// scaled_dot_product_attention's mask as one additive bias of the scores' shape (..., Sq, Sk): 0 where
// visible, −∞ where masked, an additive mask's own values; causal is bottom right. Empty when nothing
// is masked. Errors (naming `op`) on a mask that does not broadcast, a boolean mask that is not 0/1,
// NaN or +∞ in an additive one (attention_mask.cpp).
Array attention_bias(const std::string& op, const AttentionMask& mask, bool is_causal, const Shape& scores_shape);

// p holds the (sq, sk) products q kᵀ and bias the (sq, sk) mask: each row becomes
// softmax(scale · row + bias). A row whose keys are all masked (bias −∞ everywhere) becomes all 0:
// that query attends to nothing, its output is 0 and no gradient flows through it.
inline void masked_softmax_rows(double* p, std::size_t sq, std::size_t sk, double scale, const double* bias) {
  for (std::size_t i = 0; i < sq; ++i) {
    double* row = p + i * sk;
    const double* row_bias = bias + i * sk;
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < sk; ++j) max = std::max(max, row[j] = row[j] * scale + row_bias[j]);
    if (max == -std::numeric_limits<double>::infinity()) {  // every key masked: no distribution, zeros
      std::fill(row, row + sk, 0.0);
      continue;
    }
    double total = 0.0;
    for (std::size_t j = 0; j < sk; ++j) total += row[j] = std::exp(row[j] - max);  // exp(−∞) = 0
    for (std::size_t j = 0; j < sk; ++j) row[j] /= total;
  }
}

// p holds the (sq, sk) products q kᵀ; each row becomes softmax(scale · row) over its visible
// keys, the masked keys left at 0.
inline void softmax_rows(double* p, std::size_t sq, std::size_t sk, double scale, bool causal) {
  for (std::size_t i = 0; i < sq; ++i) {
    double* row = p + i * sk;
    const std::size_t seen = visible_keys(causal, i, sk);
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < seen; ++j) max = std::max(max, row[j] *= scale);
    double total = 0.0;
    for (std::size_t j = 0; j < seen; ++j) total += row[j] = std::exp(row[j] - max);
    for (std::size_t j = 0; j < seen; ++j) row[j] /= total;
    std::fill(row + seen, row + sk, 0.0);
  }
}

// ds holds dP = dy vᵀ (sq, sk); it becomes dS·scale = scale · P ⊙ (dP − rowsum(dP ⊙ P)), softmax's
// backward row by row times the 1/√Dh of the scores (masked keys have P = 0, so dS = 0).
inline void softmax_backward_rows(double* ds, const double* p, std::size_t sq, std::size_t sk, double scale) {
  for (std::size_t i = 0; i < sq; ++i) {
    const double* prow = p + i * sk;
    double* row = ds + i * sk;
    double dot = 0.0;
    for (std::size_t j = 0; j < sk; ++j) dot += row[j] * prow[j];
    for (std::size_t j = 0; j < sk; ++j) row[j] = prow[j] * (row[j] - dot) * scale;
  }
}

}  // namespace tapegrad::kernels
