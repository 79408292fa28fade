// Multi-head attention on the packed projection, fast version: the arithmetic of
// reference::multi_head_attention (kernels::reference in attention.cpp: read that one first) without its layout copies.
// The reference narrows q, k, v out of qkv (B, S, 3d), reshapes and transposes each to
// (B, H, S, Dh), and transposes and reshapes the output back: eight copies forward and eight
// backward. Here head h of batch b is read where it lies, as a strided matrix BLAS takes directly:
//   q_bh = rows of qkv[b] (S, 3d), columns h·Dh ..        leading dimension 3d
//   k_bh = the same columns + d,  v_bh = + 2d
//   y_bh = columns h·Dh .. of y[b] (S, d)                 leading dimension d
// and the backward writes dq, dk, dv the same way into one dqkv (B, S, 3d) (every value of it is
// written once, so it needs no zeroing). Each product is the same dgemm on the same values as the
// reference's (BLAS packs its operands, so the stride does not change the sums), and the softmax
// rows are the same code (attention_kernel.hpp): the same bits, checked by
// tests/ops/test_fast_attention.cpp. Used while kernels::use_fast_kernels is true (autograd/kernel_switch.hpp).
#include <cmath>

#include "../attention_kernel.hpp"
#include "../blas.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/attention.hpp"

namespace tapegrad::kernels::fast {

namespace {

// Where head h of batch b starts in a (B, S, width) array whose rows hold the heads side by side.
std::size_t head_offset(const PackedHeads& s, std::size_t width, std::size_t b, std::size_t h) {
  return b * s.seq * width + h * s.head_dim;
}

}  // namespace

Tensor multi_head_attention(const Tensor& qkv, std::size_t heads, bool causal) {
  const PackedHeads s = check_packed_heads("multi_head_attention", qkv, heads);
  const std::size_t S = s.seq, Dh = s.head_dim, d = s.d, w = 3 * d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  Array probs = Array::from_shape({s.batch, heads, S, S});  // P of every (b, h): the backward needs it
  Array y = Array::from_shape({s.batch, S, d});
  const double* x = qkv.value().data();
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      const double* q = x + head_offset(s, w, b, h);
      double* p = probs.data() + (b * heads + h) * S * S;
      blas::gemm({q, S, Dh, w}, false, {q + d, S, Dh, w}, true, p, 0.0);  // q kᵀ
      softmax_rows(p, S, S, scale, causal);
      blas::gemm({p, S, S}, false, {q + 2 * d, S, Dh, w}, false, y.data() + head_offset(s, d, b, h), 0.0, d);  // P v
    }
  return record("multi_head_attention", {qkv}, std::move(y),
                [heads, probs = std::move(probs)](const Array& dy, const TapeEntry& e) {
                  multi_head_attention_backward(dy, e.inputs[0], heads, probs);
                });
}

// Per (b, h), as scaled_dot_product_attention_backward (c = 1/√Dh):
//   dv = Pᵀ dy,  dP = dy vᵀ,  dS = P ⊙ (dP − rowsum(dP ⊙ P)),  dq = c · dS k,  dk = c · dSᵀ q
TAPEGRAD_BACKWARD void multi_head_attention_backward(const Array& dy, const Tensor& qkv, std::size_t heads,
                                                     const Array& probs) {
  const PackedHeads s = check_packed_heads("multi_head_attention", qkv, heads);
  const std::size_t S = s.seq, Dh = s.head_dim, d = s.d, w = 3 * d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  Array dqkv = Array::from_shape(qkv.shape());
  Array ds = Array::from_shape({S, S});  // dP, then c · dS, of one (b, h)
  const double* x = qkv.value().data();
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t at = head_offset(s, w, b, h);
      const double* q = x + at;
      double* dq = dqkv.data() + at;
      const blas::Matrix p{probs.data() + (b * heads + h) * S * S, S, S};
      const blas::Matrix g{dy.data() + head_offset(s, d, b, h), S, Dh, d};
      blas::gemm(p, true, g, false, dq + 2 * d, 0.0, w);                 // dv = Pᵀ dy
      blas::gemm(g, false, {q + 2 * d, S, Dh, w}, true, ds.data(), 0.0);  // dP = dy vᵀ
      softmax_backward_rows(ds.data(), p.data, S, S, scale);
      const blas::Matrix dscores{ds.data(), S, S};
      blas::gemm(dscores, false, {q + d, S, Dh, w}, false, dq, 0.0, w);  // dq = c·dS k
      blas::gemm(dscores, true, {q, S, Dh, w}, false, dq + d, 0.0, w);   // dk = c·dSᵀ q
    }
  qkv.accumulate_grad(std::move(dqkv));
}

}  // namespace tapegrad::kernels::fast
