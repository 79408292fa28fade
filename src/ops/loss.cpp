#include "tapegrad/ops/loss.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/softmax.hpp"

namespace tapegrad {

// mse_loss:  L = mean((p − t)²) over n elements;  dp = 2 (p − t) / n · dL,  dt = −dp
TAPEGRAD_BACKWARD void mse_loss_backward(const Array& dL, const Tensor& input, const Tensor& target) {
  const double n = static_cast<double>(input.numel());
  const Array g = (2.0 / n) * dL() * (input.value() - target.value());
  input.accumulate_grad(g);
  if (target.requires_grad()) target.accumulate_grad(-g);
}

Tensor mse_loss(const Tensor& input, const Tensor& target) {
  if (input.shape() != target.shape())
    throw ShapeError("mse_loss: input " + input.label() + " and target " + target.label() +
                     " must have the same shape (no broadcasting, to avoid silent mistakes)");
  if (input.numel() == 0)
    throw ShapeError("mse_loss: input " + input.label() + " is empty; the mean of nothing is undefined");
  const Array diff = input.value() - target.value();
  const double n = static_cast<double>(diff.size());
  Array loss = xt::sum(diff * diff, xt::evaluation_strategy::immediate) / n;
  return record("mse_loss", {input, target}, std::move(loss), [](const Array& dL, const TapeEntry& e) {
    mse_loss_backward(dL, e.inputs[0], e.inputs[1]);
  });
}

// cross_entropy:  L = mean_i(logsumexp(z_i) − z_i[t_i]) over N rows;
//                 dz_i = (softmax(z_i) − onehot(t_i)) / N · dL,  softmax(z_i) = exp(logp_i)
TAPEGRAD_BACKWARD void cross_entropy_backward(const Array& dL, const Tensor& logits, const Array& logp,
                                              const std::vector<std::int64_t>& targets) {
  const std::size_t N = targets.size();
  Array g = xt::exp(logp);  // softmax
  for (std::size_t i = 0; i < N; ++i) g(i, static_cast<std::size_t>(targets[i])) -= 1.0;
  g *= dL() / static_cast<double>(N);
  logits.accumulate_grad(g);
}

namespace {

// cross_entropy's argument checks: logits (N, C) with N >= 1, N targets in [0, C). `op` names the caller.
void check_cross_entropy(const char* op, const Tensor& logits, const std::vector<std::int64_t>& targets) {
  const std::string name(op);
  if (logits.dim() != 2) throw ShapeError(name + ": expected logits of shape (N, C), got " + logits.label());
  const std::size_t N = logits.shape()[0], C = logits.shape()[1];
  if (targets.size() != N)
    throw ShapeError(name + ": logits " + logits.label() + " have " + std::to_string(N) + " rows but " +
                     std::to_string(targets.size()) + " targets were given");
  if (N == 0)
    throw ShapeError(name + ": logits " + logits.label() + " hold an empty batch; the mean of nothing is undefined");
  for (std::size_t i = 0; i < N; ++i)
    if (targets[i] < 0 || targets[i] >= static_cast<std::int64_t>(C))
      throw Error(name + ": target " + std::to_string(targets[i]) + " at position " + std::to_string(i) +
                  " is out of range for logits " + logits.label() + " with " + std::to_string(C) +
                  " classes (valid targets: 0 <= t < " + std::to_string(C) + ")");
}

// log-probabilities, stably (log_softmax subtracts the row max). Not recorded:
// cross_entropy is one tape entry whose backward needs only softmax = exp(logp).
Array log_probabilities(const Tensor& logits) {
  no_grad guard;
  return log_softmax(logits, 1).value();
}

// total − Σ_i logp_i[t_i], row by row in order (the one place the loss is summed).
double subtract_target_log_probs(const Array& logp, const std::vector<std::int64_t>& targets, double total) {
  for (std::size_t i = 0; i < targets.size(); ++i) total -= logp(i, static_cast<std::size_t>(targets[i]));
  return total;
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets) {
  check_cross_entropy("cross_entropy", logits, targets);
  Array logp = log_probabilities(logits);
  const double total = subtract_target_log_probs(logp, targets, 0.0);
  Array loss = xt::xarray<double>(total / static_cast<double>(targets.size()));

  return record("cross_entropy", {logits}, std::move(loss),
                [targets, logp = std::move(logp)](const Array& dL, const TapeEntry& e) {
                  cross_entropy_backward(dL, e.inputs[0], logp, targets);
                });
}

double cross_entropy_sum(const Tensor& logits, const std::vector<std::int64_t>& targets, double total) {
  check_cross_entropy("cross_entropy_sum", logits, targets);
  return subtract_target_log_probs(log_probabilities(logits), targets, total);
}

}  // namespace tapegrad
