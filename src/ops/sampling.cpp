#include "tapegrad/ops/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "../argument_check.hpp"

namespace tapegrad {

namespace {

using Row = std::vector<double>;
constexpr double minus_inf = -std::numeric_limits<double>::infinity();

void check_options(const char* op, const SamplingOptions& options, std::size_t vocabulary) {
  detail::require(options.temperature >= 0.0, op, "temperature", options.temperature, ">= 0; 0 means greedy");
  detail::require(options.top_p > 0.0 && options.top_p <= 1.0, op, "top_p", options.top_p,
                  "in (0, 1]; 1 means off");
  if (options.top_k > vocabulary)
    throw Error(std::string(op) + ": invalid top_k=" + std::to_string(options.top_k) + " for " +
                std::to_string(vocabulary) + " logits (expected 0 (off) to " + std::to_string(vocabulary) + ")");
}

// Row `row` of logits (B, V) or the whole of logits (V), checked: NaN and +inf have no
// probability, and a row of only −inf has nothing to sample.
Row checked_row(const char* op, const Array& logits, std::size_t row, std::size_t vocabulary) {
  Row z(logits.data() + row * vocabulary, logits.data() + (row + 1) * vocabulary);
  bool any_finite = false;
  for (std::size_t i = 0; i < vocabulary; ++i) {
    if (std::isnan(z[i]) || z[i] == -minus_inf)
      throw Error(std::string(op) + ": logit " + detail::num(z[i]) + " at row " + std::to_string(row) + ", index " +
                  std::to_string(i) + " (expected finite logits, or -inf for a banned token)");
    any_finite = any_finite || z[i] != minus_inf;
  }
  if (!any_finite)
    throw Error(std::string(op) + ": every logit of row " + std::to_string(row) +
                " is -inf (expected at least one finite logit: every token is banned)");
  return z;
}

// The first index of the largest value (torch.argmax's tie rule).
std::size_t argmax(const Row& z) { return std::max_element(z.begin(), z.end()) - z.begin(); }

// exp(z − max) / Σ exp(z − max); a −inf entry gets exactly 0.
Row softmax_row(const Row& z) {
  const double largest = z[argmax(z)];
  Row p(z.size());
  double total = 0.0;
  for (std::size_t i = 0; i < z.size(); ++i) total += p[i] = std::exp(z[i] - largest);
  for (double& v : p) v /= total;
  return p;
}

// Indices from the largest logit to the smallest; among equal logits the lower index first.
std::vector<std::size_t> descending_order(const Row& z) {
  std::vector<std::size_t> order(z.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&z](std::size_t a, std::size_t b) { return z[a] > z[b]; });
  return order;
}

// TopKLogitsWarper: everything below the k-th largest logit becomes −inf (ties with it stay).
void keep_top_k(Row& z, std::size_t k) {
  if (k == 0) return;
  Row sorted = z;
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  const double kth_largest = sorted[k - 1];
  for (double& v : z)
    if (v < kth_largest) v = minus_inf;
}

// TopPLogitsWarper: walk the tokens from the least likely up, summing their probabilities;
// a token is dropped while that running sum (itself included) is ≤ 1 − p. The most likely
// token is never dropped. What is kept is the smallest head of the descending order whose
// mass reaches p: the token at which the descending sum crosses p has an ascending sum
// > 1 − p, so it stays.
void keep_top_p(Row& z, double top_p) {
  if (top_p >= 1.0) return;
  const Row p = softmax_row(z);
  const std::vector<std::size_t> order = descending_order(z);
  const double drop_mass = 1.0 - top_p;
  double ascending_sum = 0.0;
  for (std::size_t j = order.size(); j-- > 1;) {  // ascending: the last of `order` first; j = 0 always stays
    ascending_sum += p[order[j]];
    if (ascending_sum <= drop_mass) z[order[j]] = minus_inf;
  }
}

// Temperature, then top-k, then top-p, then softmax (the header's steps 1–4).
Row row_probabilities(Row z, const SamplingOptions& options) {
  if (options.temperature == 0.0) {  // greedy: all the mass on the argmax
    Row p(z.size(), 0.0);
    p[argmax(z)] = 1.0;
    return p;
  }
  // z / T on the logits, before any softmax, shifted by the largest logit first: (z − max) / T is ≤ 0, so a
  // tiny T sends the others towards −inf instead of overflowing them all to ±inf (inf − inf = NaN in the
  // softmax). The shift changes no probability and no top-k or top-p choice.
  const double largest = z[argmax(z)];
  for (double& v : z) v = (v - largest) / options.temperature;
  keep_top_k(z, options.top_k);
  keep_top_p(z, options.top_p);
  return softmax_row(z);
}

// Inverse CDF: the first index whose cumulative probability exceeds u ~ U[0, 1). If rounding
// leaves the total a hair below u, the last index with mass is returned.
std::int64_t draw(const Row& p, Generator& gen) {
  const double u = gen.uniform();
  double cumulative = 0.0;
  std::size_t last_with_mass = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0.0) continue;
    cumulative += p[i];
    last_with_mass = i;
    if (u < cumulative) return static_cast<std::int64_t>(i);
  }
  return static_cast<std::int64_t>(last_with_mass);
}

std::int64_t sample_row(const char* op, const Array& logits, std::size_t row, std::size_t vocabulary,
                        const SamplingOptions& options, Generator& gen) {
  const Row z = checked_row(op, logits, row, vocabulary);
  if (options.temperature == 0.0) return static_cast<std::int64_t>(argmax(z));  // no draw
  return draw(row_probabilities(z, options), gen);
}

void check_shape(const char* op, const Tensor& logits, std::size_t dims_wanted, const char* layout) {
  if (logits.dim() != dims_wanted)
    throw ShapeError(std::string(op) + ": logits must be " + layout + ", got shape " + shape_str(logits.shape()));
  if (logits.value().size() == 0)
    throw ShapeError(std::string(op) + ": logits are empty, shape " + shape_str(logits.shape()));
}

}  // namespace

Array sampling_probabilities(const Tensor& logits, const SamplingOptions& options) {
  const char* op = "sampling_probabilities";
  check_shape(op, logits, logits.dim() == 2 ? 2 : 1, "1-d (V) or 2-d (B, V)");
  const std::size_t vocabulary = logits.shape().back();
  const std::size_t rows = logits.value().size() / vocabulary;
  check_options(op, options, vocabulary);
  Array out = Array::from_shape(logits.shape());
  for (std::size_t row = 0; row < rows; ++row) {
    const Row p = row_probabilities(checked_row(op, logits.value(), row, vocabulary), options);
    std::copy(p.begin(), p.end(), out.data() + row * vocabulary);
  }
  return out;
}

std::int64_t sample(const Tensor& logits, const SamplingOptions& options, Generator& gen) {
  check_shape("sample", logits, 1, "1-d (V) (sample_rows takes (B, V))");
  check_options("sample", options, logits.shape()[0]);
  return sample_row("sample", logits.value(), 0, logits.shape()[0], options, gen);
}

std::vector<std::int64_t> sample_rows(const Tensor& logits, const SamplingOptions& options, Generator& gen) {
  check_shape("sample_rows", logits, 2, "2-d (B, V) (sample takes (V))");
  const std::size_t vocabulary = logits.shape()[1];
  check_options("sample_rows", options, vocabulary);
  std::vector<std::int64_t> out;
  for (std::size_t row = 0; row < logits.shape()[0]; ++row)
    out.push_back(sample_row("sample_rows", logits.value(), row, vocabulary, options, gen));
  return out;
}

}  // namespace tapegrad
