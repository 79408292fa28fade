// Exercise 21: the next token's distribution (temperature, top-k, top-p as Hugging Face) and one draw
// from it by a given uniform. The reference is the library's sampling_probabilities. The draws are
// checked as a distribution, not draw by draw: 4,000 seeded uniforms, and Pearson's chi-square of the
// token counts against the distribution (so any correct sampler passes, whatever order it sums in).
// Catalogue: the distribution on plain loops with knobs, drawn from by the inverse CDF.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <xtensor/xadapt.hpp>

#include "grader.hpp"
#include "tapegrad/ops/sampling.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {logits (V), {temperature, top_k, top_p}, uniforms (draws)}; outputs {p, draws}.
namespace input {
enum : std::size_t { logits, setup, uniforms };
}
double temperature_of(const Case& c) { return c.in[input::setup](0); }
std::size_t top_k_of(const Case& c) { return static_cast<std::size_t>(c.in[input::setup](1)); }
double top_p_of(const Case& c) { return c.in[input::setup](2); }

// ---- the draws against a distribution ----
// Pearson's χ² = Σ (n_j − N p_j)² / (N p_j) over the tokens with mass has, for N draws from p, a
// chi-square distribution with (tokens with mass − 1) degrees of freedom. Its upper 1e-6 quantile, by
// Wilson and Hilferty's cube-root normal approximation (a little above the exact one for few degrees of
// freedom: 27.5 for df 1 against 23.9): a correct sampler fails once in a million seeds, and the seeds are fixed.
double chi_square_bound(std::size_t df) {
  const double z = 4.753, v = 2.0 / (9.0 * double(df));  // z: the normal's upper 1e-6 quantile
  return double(df) * std::pow(1 - v + z * std::sqrt(v), 3);
}
bool draws_fit(const std::vector<double>& counts, const Array& p) {
  double n = 0, chi_square = 0;
  for (double k : counts) n += k;
  std::size_t support = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if (!(p(j) > 0)) {
      if (counts[j] > 0) return false;  // a token without mass was drawn
      continue;
    }
    ++support;
    chi_square += (counts[j] - n * p(j)) * (counts[j] - n * p(j)) / (n * p(j));
  }
  return support > 0 && (support == 1 || chi_square <= chi_square_bound(support - 1));
}
Array normalised(const Array& p) {
  const double total = xt::sum(p)();
  return p / total;
}
// What the draws are reported as: the reference distribution when they fit it; else the distribution
// of the sampler's own probabilities when they fit that (the mistake is then in the distribution); else
// the frequencies themselves.
Array draws_as_distribution(const std::vector<double>& counts, const Array& reference, const Array& own) {
  if (draws_fit(counts, reference)) return reference;
  if (own.size() == reference.size() && xt::sum(own)() > 0 && draws_fit(counts, normalised(own))) return normalised(own);
  Array frequencies = xt::adapt(counts, {counts.size()});
  return normalised(frequencies);
}
std::vector<double> counts_of(const Case& c, const std::function<std::size_t(double u)>& draw) {
  const std::size_t V = c.in[input::logits].size();
  std::vector<double> counts(V, 0.0);
  for (double u : c.in[input::uniforms]) {
    const std::size_t token = draw(u);
    if (token >= V) throw Error("sample_token returned the token " + std::to_string(token) + " of a vocabulary of " + std::to_string(V));
    counts[token] += 1;
  }
  return counts;
}

Array reference_probabilities(const Case& c) {
  SamplingOptions o;
  o.temperature = temperature_of(c), o.top_k = top_k_of(c), o.top_p = top_p_of(c);
  return sampling_probabilities(Tensor(c.in[input::logits]), o);
}

struct SamplingKnobs {
  bool crossing_excluded = false;       // top-p keeps only the tokens whose running sum stays within top_p
  bool temperature_after_softmax = false;  // softmax(z) / T, renormalised: T has no effect
  bool top_k_plus_one = false;          // the threshold is the (k+1)-th probability
  bool renormalised = true;             // what top-k / top-p keep is divided by its sum
};

Array probabilities_by_loops(const Case& c, const SamplingKnobs& k) {
  const Array& z = c.in[input::logits];
  const std::size_t V = z.size(), top_k = top_k_of(c);
  const double T = temperature_of(c), top_p = top_p_of(c);
  Array p = xt::zeros<double>({V});
  if (T == 0) {
    p(std::distance(z.begin(), std::max_element(z.begin(), z.end()))) = 1;  // the first of the largest
    return p;
  }
  const double t = k.temperature_after_softmax ? 1.0 : T;
  const double max = xt::amax(z)() / t;
  for (std::size_t i = 0; i < V; ++i) p(i) = std::exp(z(i) / t - max);
  p /= double(xt::sum(p)());
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p(a) > p(b); });
  auto renormalise = [&] {
    if (k.renormalised) p /= double(xt::sum(p)());
  };
  if (top_k > 0 && top_k < V) {
    const double kth = p(order[k.top_k_plus_one ? top_k : top_k - 1]);
    for (double& v : p)
      if (v < kth) v = 0;
  }
  renormalise();
  if (top_p < 1) {
    double before = 0;
    for (std::size_t i : order) {
      const double pi = p(i);
      if (k.crossing_excluded ? before + pi > top_p : before >= top_p) p(i) = 0;
      before += pi;
    }
  }
  renormalise();
  return p;
}

Outputs sampling_by_loops(const Case& c, const SamplingKnobs& k) {
  const Array p = probabilities_by_loops(c, k);
  const std::vector<double> counts = counts_of(c, [&](double u) {
    double cumulative = 0;
    std::size_t last = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p(i) == 0) continue;
      cumulative += p(i), last = i;
      if (u < cumulative) return i;
    }
    return last;
  });
  return {p, draws_as_distribution(counts, reference_probabilities(c), p)};
}

const Text kCrossing{"top-p dropped the token that crosses top_p: you kept only the tokens whose running sum stays "
    "within top_p. Hugging Face (and this exercise) keeps the smallest set whose probability reaches "
    "top_p, the crossing token included, so the most likely token is always kept: keep token i when "
    "before_i < top_p, with before_i = the sum of the probabilities of the tokens more likely than "
    "i.",
    "top-p 丢掉了越过 top_p 的那个 token：你只保留了累计和不超过 top_p 的 token。Hugging Face（以及本题）保留总概率达到 top_p 的最小集合，越过 "
    "top_p 的 token 也包括在内，所以最可能的 token 总会保留：当 before_i < top_p 时保留 token i，before_i = 比 i 更可能的 token "
    "的概率之和。"};
const Text kTemperature{"The temperature was applied after the softmax: p / T, renormalised, is p again, so T had no "
                        "effect. T divides the logits: p = softmax(z / T); T < 1 sharpens the distribution, T > 1 "
                        "flattens it.",
                        "温度用在了 softmax 之后：p / T 再归一化还是 p，所以 T 没有起作用。T 应该除 logits："
                        "p = softmax(z / T)；T < 1 让分布更尖锐，T > 1 让它更平。"};
const Text kTopK{"top-k kept k + 1 tokens: the threshold is the k-th largest probability, not the (k + 1)-th. "
    "Counting from 0 in the probabilities sorted from the largest: threshold = sorted[k − 1], keep "
    "p_i ≥ threshold.",
    "top-k 保留了 k + 1 个 token：阈值是第 k 大的概率，不是第 k + 1 大的。在从大到小排序的概率里从 0 数：阈值 = sorted[k − 1]，保留 p_i ≥ "
    "阈值的。"};
const Text kRenormalise{"What top-k and top-p kept was not renormalised: the probabilities sum to less than 1, and top-p "
    "then summed the wrong numbers. Divide by the kept total after each filter, as a softmax over "
    "the filtered logits does in Hugging Face: p_i = p_i / Σ_kept p_j.",
    "top-k 和 top-p 保留下来的概率没有重新归一化：它们的和小于 1，top-p 累加的数也就不对了。每次过滤后除以保留部分的总和，就像 Hugging Face 对过滤后的 "
    "logits 做 softmax 那样：p_i = p_i / Σ_保留 p_j。"};

}  // namespace

Spec sampling_spec() {
  Spec s;
  s.exercise = "sampling";
  Draw d(21);
  struct Setup {
    Text name;
    std::vector<double> logits;  // empty: V normal logits of the spread
    std::size_t V;
    double spread, offset, temperature;
    std::size_t top_k;
    double top_p;
  };
  const std::vector<Setup> setups = {
      {{"temperature 1, no filter", "温度 1，不过滤"}, {}, 8, 1.5, 0, 1, 0, 1},
      {{"temperature 0.7, top_k 3", "温度 0.7，top_k 3"}, {}, 9, 1.5, 0, 0.7, 3, 1},
      {{"temperature 1.3, top_p 0.8", "温度 1.3，top_p 0.8"}, {}, 10, 1.5, 0, 1.3, 0, 0.8},
      {{"temperature 1, top_k 5 and top_p 0.9", "温度 1，top_k 5 和 top_p 0.9"}, {}, 9, 1.5, 0, 1, 5, 0.9},
      {{"temperature 0, two largest tied: the first", "温度 0，两个最大值并列：取第一个"}, {0.5, 2, -1, 2, 1, 0}, 6, 0, 0, 0, 0, 1},
      {{"logits 1000 + 2·randn, temperature 0.6, top_p 0.7", "logits 1000 + 2·randn，温度 0.6，top_p 0.7"}, {}, 8, 2, 1000, 0.6, 0, 0.7},
  };
  for (const Setup& st : setups) {
    Case c;
    c.name = st.name;
    const Array logits = st.logits.empty() ? d.normal({st.V}, st.offset, st.spread) : Array(xt::adapt(st.logits, {st.V}));
    c.in = {logits, Array{st.temperature, double(st.top_k), st.top_p}, d.uniform({4000}, 0, 1)};
    c.fd = false;
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    const Array p = reference_probabilities(c);
    return Outputs{p, p};
  };
  auto add = [&](const std::string& id, SamplingKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return sampling_by_loops(c, k); }, hint, false});
  };
  SamplingKnobs k;
  k.crossing_excluded = true;
  add("top_p_excludes_crossing", k, kCrossing);
  k = {};
  k.temperature_after_softmax = true;
  add("temperature_after_softmax", k, kTemperature);
  k = {};
  k.top_k_plus_one = true;
  add("top_k_keeps_k_plus_one", k, kTopK);
  k = {};
  k.renormalised = false;
  add("not_renormalised", k, kRenormalise);
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_sampling(SamplingProbabilities probabilities, SampleToken sample, const Options& options) {
  auto probs_of = [=](const Case& c) {
    return probabilities(c.in[input::logits], temperature_of(c), top_k_of(c), top_p_of(c));
  };
  return graded(sampling_spec(),
                {{"sampling_probabilities", {"p"}, [=](const Case& c) { return Outputs{probs_of(c)}; }},
                 {"sample_token", {"draws (4,000, chi-square)"},
                  [=](const Case& c) {
                    const std::vector<double> counts = counts_of(c, [&](double u) {
                      return sample(c.in[input::logits], temperature_of(c), top_k_of(c), top_p_of(c), u);
                    });
                    Array own;  // the learner's own distribution, if their probabilities run
                    try {
                      own = probs_of(c);
                    } catch (const std::exception&) {
                      own = Array();
                    }
                    return Outputs{draws_as_distribution(counts, reference_probabilities(c), own)};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
