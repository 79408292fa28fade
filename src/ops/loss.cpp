#include "tapegrad/ops/loss.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>

#include "../argument_check.hpp"
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

// cross_entropy with options (ε = label_smoothing, K = count of targets ≠ ignore_index, C classes):
//   L = Σ_counted [(1 − ε)(−logp_i[t_i]) + ε · mean_c(−logp_i[c])] / K
//   dz_i = (softmax(z_i) − ((1 − ε) onehot(t_i) + ε/C)) / K · dL for a counted row, 0 for an ignored one
// (the smoothed target sums to 1 as a one-hot does; logp is (rows, C), dz is given the logits' shape)
TAPEGRAD_BACKWARD void cross_entropy_options_backward(const Array& dL, const Tensor& logits, const Array& logp,
                                                      const std::vector<std::int64_t>& targets,
                                                      const CrossEntropyOptions& options) {
  const std::size_t C = logp.shape()[1];
  const double eps = options.label_smoothing;
  const double on_target = 1.0 - eps, every_class = eps / static_cast<double>(C);
  std::size_t counted = 0;
  Array g = xt::exp(logp);  // softmax, (rows, C)
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] == options.ignore_index) {
      for (std::size_t c = 0; c < C; ++c) g(i, c) = 0.0;  // an ignored row has no loss, so no gradient
      continue;
    }
    ++counted;
    for (std::size_t c = 0; c < C; ++c) g(i, c) -= every_class;
    g(i, static_cast<std::size_t>(targets[i])) -= on_target;
  }
  g *= dL() / static_cast<double>(counted);
  g.reshape(logits.shape());
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

// The options form's checks: logits (N, C) or (B, T, C), one target per row (B·T of them), each a
// class or ignore_index, ε in [0, 1], at least one counted target. Returns how many are counted.
std::size_t check_cross_entropy_options(const Tensor& logits, const std::vector<std::int64_t>& targets,
                                        const CrossEntropyOptions& options) {
  if (logits.dim() != 2 && logits.dim() != 3)
    throw ShapeError("cross_entropy: expected logits of shape (N, C) or (B, T, C) (classes last), got " +
                     logits.label());
  const std::size_t C = logits.shape().back(), rows = logits.dim() == 2 ? logits.shape()[0]
                                                                          : logits.shape()[0] * logits.shape()[1];
  if (C == 0) throw ShapeError("cross_entropy: logits " + logits.label() + " have no classes (C = 0)");
  if (targets.size() != rows)
    throw ShapeError("cross_entropy: logits " + logits.label() + " have " + std::to_string(rows) + " rows" +
                     (logits.dim() == 3 ? " (B·T, the targets flattened as logits.view(-1, C))" : "") + " but " +
                     std::to_string(targets.size()) + " targets were given");
  if (rows == 0)
    throw ShapeError("cross_entropy: logits " + logits.label() + " hold an empty batch; the mean of nothing is undefined");
  if (!(options.label_smoothing >= 0.0 && options.label_smoothing <= 1.0))
    throw Error("cross_entropy: label_smoothing must be in [0, 1] (as in torch.nn.functional.cross_entropy), got " +
                detail::num(options.label_smoothing) + " for logits " + logits.label());
  std::size_t counted = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    if (targets[i] == options.ignore_index) continue;
    if (targets[i] < 0 || targets[i] >= static_cast<std::int64_t>(C))
      throw Error("cross_entropy: target " + std::to_string(targets[i]) + " at position " + std::to_string(i) +
                  " is out of range for logits " + logits.label() + " with " + std::to_string(C) +
                  " classes (valid targets: 0 <= t < " + std::to_string(C) + ", or ignore_index = " +
                  std::to_string(options.ignore_index) + ")");
    ++counted;
  }
  if (counted == 0)
    throw Error("cross_entropy: all " + std::to_string(rows) + " targets equal ignore_index = " +
                std::to_string(options.ignore_index) + " for logits " + logits.label() +
                "; the mean over no counted targets is undefined (PyTorch returns NaN)");
  return counted;
}

// log-probabilities over the last axis, stably (log_softmax subtracts the row max). Not recorded:
// cross_entropy is one tape entry whose backward needs only softmax = exp(logp).
Array log_probabilities(const Tensor& logits) {
  no_grad guard;
  return log_softmax(logits, -1).value();
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

Tensor cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets,
                     const CrossEntropyOptions& options) {
  const std::size_t counted = check_cross_entropy_options(logits, targets, options);
  const std::size_t C = logits.shape().back();
  Array logp = log_probabilities(logits);
  logp.reshape({targets.size(), C});  // (B, T, C) -> (B·T, C): row i is target i's
  double nll = 0.0, smooth = 0.0;     // Σ −logp_i[t_i] and Σ_c −logp_i[c], over counted rows
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] == options.ignore_index) continue;
    nll -= logp(i, static_cast<std::size_t>(targets[i]));
    for (std::size_t c = 0; c < C; ++c) smooth -= logp(i, c);
  }
  const double eps = options.label_smoothing, K = static_cast<double>(counted);
  Array loss = xt::xarray<double>((1.0 - eps) * (nll / K) + eps * (smooth / (static_cast<double>(C) * K)));

  return record("cross_entropy", {logits}, std::move(loss),
                [targets, options, logp = std::move(logp)](const Array& dL, const TapeEntry& e) {
                  cross_entropy_options_backward(dL, e.inputs[0], logp, targets, options);
                });
}

double cross_entropy_sum(const Tensor& logits, const std::vector<std::int64_t>& targets, double total) {
  check_cross_entropy("cross_entropy_sum", logits, targets);
  return subtract_target_log_probs(log_probabilities(logits), targets, total);
}

}  // namespace tapegrad
