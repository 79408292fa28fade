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

#include "blas.hpp"
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

// The sizes of one head's attention: Sq queries and Sk keys of width Dh, values of width Dv.
struct HeadSizes {
  std::size_t sq, sk, dh, dv;
};

// One head, each matrix packed row-major: p (Sq, Sk) = softmax(q kᵀ · scale (+ bias)), y (Sq, Dv) = p v.
// bias: the head's (Sq, Sk) mask as an additive bias (0 / −∞ / an additive mask's values), or nullptr for the
// plain row softmax (causal there means query i sees keys 0..i, used only with Sq == Sk).
inline void attention_head_forward(const double* q, const double* k, const double* v, HeadSizes s, double scale,
                                   bool causal, const double* bias, double* p, double* y) {
  blas::gemm({q, s.sq, s.dh}, false, {k, s.sk, s.dh}, true, p, 0.0);  // q kᵀ: (Sq, Dh) @ (Sk, Dh)ᵀ
  if (bias)
    masked_softmax_rows(p, s.sq, s.sk, scale, bias);  // fully masked rows: 0
  else
    softmax_rows(p, s.sq, s.sk, scale, causal);
  blas::gemm({p, s.sq, s.sk}, false, {v, s.sk, s.dv}, false, y, 0.0);  // P v: (Sq, Sk) @ (Sk, Dv)
}

// Its backward, from dy (Sq, Dv) and the saved p; ds is (Sq, Sk) scratch. With c = scale:
//   dv = Pᵀ dy,  dP = dy vᵀ,  dS = P ⊙ (dP − rowsum(dP ⊙ P)),  dq = c · dS k,  dk = c · dSᵀ q
// dq is written; dk and dv are written (kv_beta = 0) or added to (kv_beta = 1: a kv head that serves several
// query heads sums their gradients). dv null: not wanted; dq (and dk) null: neither wanted.
inline void attention_head_backward(const double* dy, const double* q, const double* k, const double* v,
                                    const double* p, HeadSizes s, double scale, double* ds, double* dq, double* dk,
                                    double* dv, double kv_beta) {
  const blas::Matrix probs{p, s.sq, s.sk}, g{dy, s.sq, s.dv};
  if (dv) blas::gemm(probs, true, g, false, dv, kv_beta);  // (Sq, Sk)ᵀ @ (Sq, Dv)
  if (!dq) return;
  blas::gemm(g, false, {v, s.sk, s.dv}, true, ds, 0.0);  // dy vᵀ
  softmax_backward_rows(ds, p, s.sq, s.sk, scale);        // dP -> c · dS
  const blas::Matrix dscores{ds, s.sq, s.sk};
  blas::gemm(dscores, false, {k, s.sk, s.dh}, false, dq, 0.0);       // (Sq, Sk) @ (Sk, Dh)
  blas::gemm(dscores, true, {q, s.sq, s.dh}, false, dk, kv_beta);    // (Sq, Sk)ᵀ @ (Sq, Dh)
}

}  // namespace tapegrad::kernels
