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

// cross_entropy's sum before the mean, as a plain number (nothing recorded): total − Σ_i log
// softmax(logits_i)[target_i], the rows added in order. cross_entropy is cross_entropy_sum(z, t, 0) / N,
// so a loss over a dataset forwarded in chunks, each chunk's sum started from the previous one's and
// the last divided by the whole N, is bitwise the loss of one forward over the whole set (the lab's
// evaluations: lab/src/depth_run.cpp's mean_loss).
double cross_entropy_sum(const Tensor& logits, const std::vector<std::int64_t>& targets, double total = 0.0);

// ---- backward rules (the math is above each one in loss.cpp) ----
// dL: the gradient of the (0-d) loss; logp: the log-probabilities the forward computed.
void mse_loss_backward(const Array& dL, const Tensor& input, const Tensor& target);
void cross_entropy_backward(const Array& dL, const Tensor& logits, const Array& logp,
                            const std::vector<std::int64_t>& targets);

}  // namespace tapegrad
