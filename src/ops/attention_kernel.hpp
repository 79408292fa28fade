#pragma once
// The row-wise pieces of attention shared by scaled_dot_product_attention (attention.cpp) and the
// packed multi-head kernel (fast/attention_fast.cpp), so that both compute the same bits
// (internal header of src/ops).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::kernels {

// The sizes of a packed (B, S, 3d) projection split into `heads` heads of head_dim features.
struct PackedHeads {
  std::size_t batch, seq, d, heads, head_dim;
};
// Checks qkv and heads (attention.cpp); the error names `op`, the shape and what was expected.
PackedHeads check_packed_heads(const std::string& op, const Tensor& qkv, std::size_t heads);

// How many keys query i sees: all of them, or under the causal mask keys 0..i.
inline std::size_t visible_keys(bool causal, std::size_t i, std::size_t sk) {
  return causal ? std::min(sk, i + 1) : sk;
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
