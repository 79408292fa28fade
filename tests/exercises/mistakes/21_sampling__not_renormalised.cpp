// A planted mistake (written by hand from the reference solution, kept in tests/exercises/mistakes/):
// exercise: sampling
// mistake: not_renormalised (the kept probabilities not divided by their sum)
// The grader must fail it and diagnose diagnosis=not_renormalised.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

using tapegrad::Array;

// The lowest index of the largest logit.
static std::size_t argmax(const Array& logits) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < logits.size(); ++i)
    if (logits(i) > logits(best)) best = i;
  return best;
}

// Divide by the sum: what is kept is a distribution again.
static void renormalise(std::vector<double>& p) {
  (void)p;  // already a distribution
}

// softmax(z / T); top-k; renormalise; top-p (the crossing token kept); renormalise.
Array sampling_probabilities(const Array& logits, double temperature, std::size_t top_k, double top_p) {
  const std::size_t V = logits.size();
  Array out = Array::from_shape({V});
  out.fill(0.0);
  if (temperature == 0) {  // greedy
    out(argmax(logits)) = 1;
    return out;
  }
  std::vector<double> p(V);
  double max = -INFINITY, z = 0;
  for (std::size_t i = 0; i < V; ++i) max = std::max(max, logits(i) / temperature);
  for (std::size_t i = 0; i < V; ++i) z += p[i] = std::exp(logits(i) / temperature - max);
  for (double& v : p) v /= z;
  // the order of the tokens, most likely first (the lower index first among ties)
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  if (top_k > 0 && top_k < V) {
    const double kth = p[order[top_k - 1]];
    for (double& v : p)
      if (v < kth) v = 0;  // ties with the k-th are kept
  }
  renormalise(p);
  if (top_p < 1) {
    double before = 0;  // the probability of the tokens more likely than this one
    for (std::size_t i : order) {
      const double pi = p[i];
      if (before >= top_p) p[i] = 0;  // the set already reached top_p
      before += pi;
    }
  }
  renormalise(p);
  for (std::size_t i = 0; i < V; ++i) out(i) = p[i];
  return out;
}

// The inverse CDF at u: the first i with p_0 + ... + p_i > u. T = 0: the argmax, u unused.
std::size_t sample_token(const Array& logits, double temperature, std::size_t top_k, double top_p, double u) {
  if (temperature == 0) return argmax(logits);
  const Array p = sampling_probabilities(logits, temperature, top_k, top_p);
  double cumulative = 0;
  std::size_t last = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p(i) == 0) continue;
    cumulative += p(i);
    last = i;
    if (u < cumulative) return i;
  }
  return last;  // u within rounding of 1
}
