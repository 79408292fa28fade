// grouped_query_attention: query head h reads kv head h / n_rep in place, no repeated copies of k and v;
// its named backward; the composed reference (repeat_kv, then scaled_dot_product_attention); and the
// split_heads / merge_heads layout ops.
//
// The products are the reference's, call for call: per (b, h) the same dgemm on the same values (kv head
// g's block is read where it lies instead of from its copy), the same softmax rows (attention_kernel.hpp),
// and dk, dv summed over a group's query heads in the order repeat_kv_backward sums them (zeros, then
// + head 0, + head 1, ...), as BLAS's β = 1 adds a product to what is there. So the values and gradients
// are the reference's (tests/ops/test_grouped_query_attention.cpp checks every bit).
#include "tapegrad/ops/grouped_query_attention.hpp"

#include <string>

#include "attention_kernel.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/repeat_kv.hpp"

namespace tapegrad {

namespace {

// The sizes of one grouped-query attention: batch B, Hq query heads, Hkv kv heads (n_rep = Hq / Hkv
// query heads each), Sq queries and Sk keys of width D, values of width Dv.
struct GroupedShape {
  std::size_t batch, hq, hkv, n_rep, sq, sk, d, dv;
};

GroupedShape check_grouped(const std::string& op, const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::string got = ": got q " + q.label() + ", k " + k.label() + ", v " + v.label();
  const std::string expected = "; expected q (B, Hq, Sq, D), k (B, Hkv, Sk, D), v (B, Hkv, Sk, Dv) with Hq a multiple of Hkv";
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) throw ShapeError(op + got + expected + " (4-D each)");
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  if (ks[0] != qs[0] || vs[0] != qs[0]) throw ShapeError(op + got + "; the batch sizes differ" + expected);
  if (vs[1] != ks[1]) throw ShapeError(op + got + "; k and v differ in the number of kv heads" + expected);
  if (ks[1] == 0 || qs[1] % ks[1] != 0)
    throw ShapeError(op + got + "; Hq = " + std::to_string(qs[1]) + " is not a multiple of Hkv = " +
                     std::to_string(ks[1]) + expected + " (query head h reads kv head h / (Hq / Hkv))");
  if (ks[3] != qs[3]) throw ShapeError(op + got + "; q and k differ in the head width D" + expected);
  if (vs[2] != ks[2]) throw ShapeError(op + got + "; k and v differ in the number of keys Sk" + expected);
  if (qs[3] == 0) throw ShapeError(op + got + "; the head width D is 0, so 1/√D is undefined");
  if (ks[2] == 0) throw ShapeError(op + got + "; there are no keys (Sk = 0): a softmax over nothing is undefined");
  return {qs[0], qs[1], ks[1], qs[1] / ks[1], qs[2], ks[2], qs[3], vs[3]};
}

// Where head h of batch b starts in a (B, heads, rows, width) array: one (rows, width) block per head.
const double* head(const Array& a, std::size_t heads, std::size_t b, std::size_t h) {
  const auto& s = a.shape();
  return a.data() + (b * heads + h) * s[2] * s[3];
}
double* head(Array& a, std::size_t heads, std::size_t b, std::size_t h) {
  const auto& s = a.shape();
  return a.data() + (b * heads + h) * s[2] * s[3];
}

}  // namespace

// ---- per (b, h), g = h / n_rep:  P = softmax(q_bh k_bgᵀ · scale (+ mask)),  y_bh = P v_bg ----
Tensor grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const GroupedQueryAttentionOptions& options) {
  const GroupedShape s = check_grouped("grouped_query_attention", q, k, v);
  const double scale = kernels::scores_scale("grouped_query_attention", q, options.scale, s.d);
  // Inside a precision_scope the reference rounds each query head's dk and dv before summing them over
  // the group (each tape entry's gradient is stored in the scope's format); the composition does exactly that.
  if (low_precision_active()) return composed::grouped_query_attention(q, k, v, options);
  const Shape p_shape{s.batch, s.hq, s.sq, s.sk};
  // As scaled_dot_product_attention: the plain row softmax unless a mask (or causal with Sq != Sk) needs a bias.
  const bool plain = options.attn_mask.empty() && (!options.causal || s.sq == s.sk);
  const Array bias =
      plain ? Array() : kernels::attention_bias("grouped_query_attention", options.attn_mask, options.causal, p_shape);
  Array probs = Array::from_shape(p_shape);  // P, the one thing the backward needs besides q, k, v
  Array y = Array::from_shape({s.batch, s.hq, s.sq, s.dv});
  const kernels::HeadSizes sizes{s.sq, s.sk, s.d, s.dv};
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.hq; ++h) {
      const std::size_t g = h / s.n_rep;  // the kv head this query head reads
      kernels::attention_head_forward(head(q.value(), s.hq, b, h), head(k.value(), s.hkv, b, g),
                                      head(v.value(), s.hkv, b, g), sizes, scale, options.causal,
                                      plain ? nullptr : head(bias, s.hq, b, h), head(probs, s.hq, b, h),
                                      head(y, s.hq, b, h));
    }
  return record("grouped_query_attention", {q, k, v}, std::move(y),
                [probs = std::move(probs), scale](const Array& dy, const TapeEntry& e) {
                  grouped_query_attention_backward(dy, e.inputs[0], e.inputs[1], e.inputs[2], probs, scale);
                });
}

// Per (b, h), g = h / n_rep, P the saved probabilities and c the scale, as scaled_dot_product_attention's:
//   dP = dy vᵀ,  dS = P ⊙ (dP − rowsum(dP ⊙ P)),  dq_h = c · dS k_g
// and since kv head g served every query head of its group (repeat_kv's backward: a sum over the copies),
//   dv_g = Σ_{h in g's group} P_hᵀ dy_h,   dk_g = Σ_{h in g's group} c · dS_hᵀ q_h
// each term added to dk_g, dv_g (zeros first) by BLAS's β = 1, in the order of h.
TAPEGRAD_BACKWARD void grouped_query_attention_backward(const Array& dy, const Tensor& q, const Tensor& k,
                                                        const Tensor& v, const Array& probs, double scale) {
  const GroupedShape s = check_grouped("grouped_query_attention", q, k, v);
  const bool need_dv = v.requires_grad(), need_scores = q.requires_grad() || k.requires_grad();
  Array dq = need_scores ? Array::from_shape(q.shape()) : Array();
  Array dk = need_scores ? Array(xt::zeros<double>(k.shape())) : Array();
  Array dv = need_dv ? Array(xt::zeros<double>(v.shape())) : Array();
  Array ds = Array::from_shape({s.sq, s.sk});  // dP, then c · dS, of one (b, h)
  const kernels::HeadSizes sizes{s.sq, s.sk, s.d, s.dv};
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.hq; ++h) {
      const std::size_t g = h / s.n_rep;
      kernels::attention_head_backward(head(dy, s.hq, b, h), head(q.value(), s.hq, b, h), head(k.value(), s.hkv, b, g),
                                       head(v.value(), s.hkv, b, g), head(probs, s.hq, b, h), sizes, scale, ds.data(),
                                       need_scores ? head(dq, s.hq, b, h) : nullptr,
                                       need_scores ? head(dk, s.hkv, b, g) : nullptr,
                                       need_dv ? head(dv, s.hkv, b, g) : nullptr, 1.0);  // dk_g, dv_g: + this head's
    }
  if (need_scores) {
    q.accumulate_grad(std::move(dq));
    k.accumulate_grad(std::move(dk));
  }
  if (need_dv) v.accumulate_grad(std::move(dv));
}

namespace composed {

Tensor grouped_query_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const GroupedQueryAttentionOptions& options) {
  const GroupedShape s = check_grouped("composed::grouped_query_attention", q, k, v);
  return tapegrad::scaled_dot_product_attention(q, repeat_kv(k, s.n_rep), repeat_kv(v, s.n_rep), options.attn_mask,
                                      options.causal, options.scale);
}

}  // namespace composed

// ---- split_heads: y[b, h, s, :] = x[b, s, h·D ..];  merge_heads: the inverse ----
namespace {

// Copies between (B, S, H·D), rows of heads side by side, and (B, H, S, D), one block per head:
// to_heads = true reads the first layout and writes the second, false the other way.
void copy_heads(const double* from, double* to, std::size_t B, std::size_t S, std::size_t H, std::size_t D,
                bool to_heads) {
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t s = 0; s < S; ++s) {
        const std::size_t side_by_side = ((b * S + s) * H + h) * D, blocked = ((b * H + h) * S + s) * D;
        const double* in = from + (to_heads ? side_by_side : blocked);
        double* out = to + (to_heads ? blocked : side_by_side);
        for (std::size_t i = 0; i < D; ++i) out[i] = in[i];
      }
}

}  // namespace

Tensor split_heads(const Tensor& x, std::size_t heads) {
  if (x.dim() != 3 || heads == 0 || x.shape()[2] % heads != 0)
    throw ShapeError("split_heads: got x " + x.label() + " with heads = " + std::to_string(heads) +
                     "; expected x of shape (B, S, H·D) with its last dimension a multiple of heads > 0");
  const Shape& xs = x.shape();
  Array y = Array::from_shape({xs[0], heads, xs[1], xs[2] / heads});
  copy_heads(x.value().data(), y.data(), xs[0], xs[1], heads, xs[2] / heads, true);
  return record("split_heads", {x}, std::move(y),
                [heads](const Array& dy, const TapeEntry& e) { split_heads_backward(dy, e.inputs[0], heads); });
}

// Each value of x went to exactly one place of y, so dx is dy moved back: merge_heads's copy.
TAPEGRAD_BACKWARD void split_heads_backward(const Array& dy, const Tensor& x, std::size_t heads) {
  const Shape& xs = x.shape();
  Array dx = Array::from_shape(xs);
  copy_heads(dy.data(), dx.data(), xs[0], xs[1], heads, xs[2] / heads, false);
  x.accumulate_grad(std::move(dx));
}

Tensor merge_heads(const Tensor& x) {
  if (x.dim() != 4) throw ShapeError("merge_heads: got x " + x.label() + "; expected x of shape (B, H, S, D)");
  const Shape& xs = x.shape();
  Array y = Array::from_shape({xs[0], xs[2], xs[1] * xs[3]});
  copy_heads(x.value().data(), y.data(), xs[0], xs[2], xs[1], xs[3], false);
  return record("merge_heads", {x}, std::move(y),
                [](const Array& dy, const TapeEntry& e) { merge_heads_backward(dy, e.inputs[0]); });
}

// dx = dy moved back: split_heads's copy.
TAPEGRAD_BACKWARD void merge_heads_backward(const Array& dy, const Tensor& x) {
  const Shape& xs = x.shape();
  Array dx = Array::from_shape(xs);
  copy_heads(dy.data(), dx.data(), xs[0], xs[2], xs[1], xs[3], true);
  x.accumulate_grad(std::move(dx));
}

}  // namespace tapegrad
