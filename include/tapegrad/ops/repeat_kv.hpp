#pragma once
// repeat_kv: grouped-query attention's sharing of key/value heads, as LLaMA's repeat_kv
// (= torch.repeat_interleave(x, n_rep, dim=1)):
//
//   x (B, Hkv, S, D) -> y (B, Hkv·n_rep, S, D),   y[:, j·n_rep + r] = x[:, j]   for r < n_rep
//
// so query head h reads kv head h / n_rep (consecutive query heads share one kv head).
// Not torch's repeat / tile, which would give y[:, r·Hkv + j] = x[:, j] (head h reads kv head h % Hkv).
// n_rep = 1 is the identity (plain multi-head attention).

#include <cstddef>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor repeat_kv(const Tensor& x, std::size_t n_rep);

// The backward of repeat_kv: each kv head's gradient is the sum of its n_rep copies' gradients.
void repeat_kv_backward(const Array& dy, const Tensor& x, std::size_t n_rep);

}  // namespace tapegrad
