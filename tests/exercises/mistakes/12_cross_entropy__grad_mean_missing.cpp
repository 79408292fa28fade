// A planted mistake, written from the reference solution (tests/exercises/plant_mistakes.py puts it in the test):
// exercise: cross_entropy
// mistake: grad_mean_missing (the gradient without 1/n)
// The grader must fail it and diagnose diagnosis=grad_mean_missing.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// log Σ_c exp(z_c), with the max subtracted so that exp never overflows.
static double logsumexp_row(const double* z, std::size_t C) {
  double m = z[0], s = 0;
  for (std::size_t c = 1; c < C; ++c) m = std::max(m, z[c]);
  for (std::size_t c = 0; c < C; ++c) s += std::exp(z[c] - m);
  return m + std::log(s);
}

static double counted_rows(const std::vector<std::int64_t>& targets, std::int64_t ignore_index) {
  double n = 0;
  for (std::int64_t t : targets) n += t != ignore_index;
  return n;
}

// L = mean over the counted rows of logsumexp(z_i) − z_i[t_i].
double cross_entropy_forward(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index) {
  const std::size_t N = logits.shape()[0], C = logits.shape()[1];
  double total = 0;
  for (std::size_t i = 0; i < N; ++i)
    if (targets[i] != ignore_index) total += logsumexp_row(logits.data() + i * C, C) - logits(i, targets[i]);
  return total / counted_rows(targets, ignore_index);
}

// dz_i = (softmax(z_i) − onehot(t_i)) / n for a counted row, 0 for an ignored one.
Array cross_entropy_backward(const Array& logits, const std::vector<std::int64_t>& targets, std::int64_t ignore_index) {
  const std::size_t N = logits.shape()[0], C = logits.shape()[1];
  const double n = counted_rows(targets, ignore_index);
  Array dz = Array::from_shape(logits.shape());
  dz.fill(0.0);
  for (std::size_t i = 0; i < N; ++i) {
    if (targets[i] == ignore_index) continue;
    const double lse = logsumexp_row(logits.data() + i * C, C);
    for (std::size_t c = 0; c < C; ++c) dz(i, c) = std::exp(logits(i, c) - lse);
    dz(i, targets[i]) -= 1.0;
  }
  return dz;
}
