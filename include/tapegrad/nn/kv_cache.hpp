#pragma once
// nn::KVCache: one attention layer's keys and values of the positions seen so far, for decoding one
// token at a time without recomputing the prefix (Hugging Face's past_key_values, one layer of it).
//
// It stores the kv heads as they come out of k_proj / v_proj (after RoPE for the keys), NOT repeated
// for grouped-query attention: (B, Hkv, T, Dh) each, so memory grows as T · num_kv_heads · head_dim,
// num_heads / num_kv_heads times less than plain multi-head attention's cache.
//
// The cached values are plain arrays, constants: decoding is inference, and MultiheadAttention's
// forward with a cache refuses to run while gradients are recorded (use no_grad).

#include <cstddef>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::nn {

class KVCache {
 public:
  // Positions seen so far (T); the next token's position. 0 when empty.
  std::size_t length() const { return empty() ? 0 : keys_.shape()[2]; }
  bool empty() const { return keys_.dimension() != 4; }
  void reset();  // forget every position

  // Appends k_new, v_new (B, Hkv, S_new, Dh) after the cached positions along axis 2. Errors if the
  // two differ in shape or if B, Hkv or Dh differ from what is cached.
  void append(const Array& k_new, const Array& v_new);

  const Array& keys() const { return keys_; }      // (B, Hkv, T, Dh)
  const Array& values() const { return values_; }  // (B, Hkv, T, Dh)

 private:
  Array keys_, values_;
};

}  // namespace tapegrad::nn
