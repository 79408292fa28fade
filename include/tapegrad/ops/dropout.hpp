#pragma once
// Dropout, as torch.nn.functional.dropout: in training, each entry is zeroed with
// probability p and the kept ones are scaled by 1/(1 − p) ("inverted" dropout), so
// E[y] = x and eval mode needs no rescaling.

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// y = x ⊙ m / (1 − p), m a 0/1 mask with P(m = 1) = 1 − p drawn from `gen` (one
// uniform() per entry, row-major: the same generator state gives the same mask).
// training = false or p = 0: returns x itself (no tape entry, no draws), as PyTorch.
// p = 1: every entry is dropped and y = 0 (no division by zero); its gradient is 0.
// p outside [0, 1] (or NaN) throws an Error naming dropout and p.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator& gen = default_generator());

// The mask as dropout applies it: 1/(1 − p) where kept, 0 where dropped (all 0 for p = 1).
// dropout(x, p, true, gen) is x ⊙ dropout_scaled_mask(x.shape(), p, gen) from the same state.
Array dropout_scaled_mask(const Shape& shape, double p, Generator& gen = default_generator());

// ---- backward rule (the math is above it in dropout.cpp) ----
void dropout_backward(const Array& dy, const Tensor& x, const Array& scaled_mask);

}  // namespace tapegrad
