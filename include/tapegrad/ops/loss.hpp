#pragma once
// Losses, mean-reduced as PyTorch's defaults.

#include <cstdint>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// mean((input - target)^2); shapes must be equal.
Tensor mse_loss(const Tensor& input, const Tensor& target);

// logits (N, C), targets N class indices in [0, C): mean of -log softmax(logits)[target].
Tensor cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets);

// ---- backward rules (the math is above each one in loss.cpp) ----
// dL: the gradient of the (0-d) loss; logp: the log-probabilities the forward computed.
void mse_loss_backward(const Array& dL, const Tensor& input, const Tensor& target);
void cross_entropy_backward(const Array& dL, const Tensor& logits, const Array& logp,
                            const std::vector<std::int64_t>& targets);

}  // namespace tapegrad
