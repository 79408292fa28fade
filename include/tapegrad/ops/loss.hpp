#pragma once
// Losses, mean-reduced as PyTorch's defaults.

#include <cstdint>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// mean((input - target)^2); shapes must be equal.
Tensor mse_loss(const Tensor& input, const Tensor& target);

// logits (N, C), targets N class indices in [0, C): mean of -log softmax(logits)[target].
// This form has no ignore_index: every target must be a class (a −100 is an Error here; pass
// CrossEntropyOptions{} for PyTorch's default ignore_index = -100).
Tensor cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets);

// torch.nn.functional.cross_entropy's options (reduction "mean", no class weights).
struct CrossEntropyOptions {
  std::int64_t ignore_index = -100;  // targets equal to it count for nothing: no loss, zero gradient rows
  double label_smoothing = 0.0;      // ε in [0, 1]: the target is (1 − ε)·onehot + ε/C over all C classes
};

// As torch.nn.functional.cross_entropy(logits, targets, ignore_index=, label_smoothing=):
//   L = (1 − ε) · Σ_counted −log p_i[t_i] / count + ε · Σ_counted mean_c(−log p_i[c]) / count,
// p_i = softmax(logits_i), "counted" = the rows whose target is not ignore_index, count their number.
// logits (N, C), or (B, T, C) with B·T targets in row-major order (b, t): the LLM layout, as everyone
// calls PyTorch with logits.view(-1, C) and targets.view(-1) (PyTorch's own K-dimensional form wants
// the classes second, (B, C, T); tapegrad takes them last).
// All targets ignored: an Error (PyTorch returns NaN, 0/0, which would silently poison a training
// run; docs/conventions.md). Errors also for a target outside [0, C) that is not ignore_index,
// ε outside [0, 1], and a targets count that is not the logits' row count.
Tensor cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets,
                     const CrossEntropyOptions& options);

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
// logp: (rows, C), the logits' rows flattened; the gradient is given the logits' shape.
void cross_entropy_options_backward(const Array& dL, const Tensor& logits, const Array& logp,
                                    const std::vector<std::int64_t>& targets, const CrossEntropyOptions& options);

}  // namespace tapegrad
