// repeat_kv (grouped-query attention's kv-head sharing) and its named backward.
#include "tapegrad/ops/repeat_kv.hpp"

#include <string>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

// ---- y[b, j·n_rep + r] = x[b, j] ----
// Each (S, D) head is one contiguous block of S·D values in (B, H, S, D), so a head is copied as a block.
Tensor repeat_kv(const Tensor& x, std::size_t n_rep) {
  if (x.dim() != 4)
    throw ShapeError("repeat_kv: expected x of shape (B, Hkv, S, D) (keys or values split into heads), got " +
                     x.label());
  if (n_rep == 0)
    throw Error("repeat_kv: invalid n_rep=0 for x " + x.label() +
                " (expected n_rep >= 1: query heads per kv head, num_heads / num_kv_heads)");
  const Shape& xs = x.shape();
  const std::size_t B = xs[0], Hkv = xs[1], head_size = xs[2] * xs[3];
  Array y = Array::from_shape({B, Hkv * n_rep, xs[2], xs[3]});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < Hkv; ++j) {
      const double* kv_head = x.value().data() + (b * Hkv + j) * head_size;
      for (std::size_t r = 0; r < n_rep; ++r) {
        double* query_head = y.data() + (b * Hkv * n_rep + j * n_rep + r) * head_size;
        for (std::size_t i = 0; i < head_size; ++i) query_head[i] = kv_head[i];
      }
    }
  return record("repeat_kv", {x}, std::move(y),
                [n_rep](const Array& dy, const TapeEntry& e) { repeat_kv_backward(dy, e.inputs[0], n_rep); });
}

// kv head j was used by query heads j·n_rep .. j·n_rep + n_rep − 1, so
//   dx[b, j] = Σ_r dy[b, j·n_rep + r]
TAPEGRAD_BACKWARD void repeat_kv_backward(const Array& dy, const Tensor& x, std::size_t n_rep) {
  const Shape& xs = x.shape();
  const std::size_t B = xs[0], Hkv = xs[1], head_size = xs[2] * xs[3];
  Array dx = xt::zeros<double>(xs);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < Hkv; ++j) {
      double* kv_grad = dx.data() + (b * Hkv + j) * head_size;
      for (std::size_t r = 0; r < n_rep; ++r) {
        const double* query_grad = dy.data() + (b * Hkv * n_rep + j * n_rep + r) * head_size;
        for (std::size_t i = 0; i < head_size; ++i) kv_grad[i] += query_grad[i];
      }
    }
  x.accumulate_grad(dx);
}

}  // namespace tapegrad
