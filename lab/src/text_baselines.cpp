#include "tapegrad/lab/text_baselines.hpp"

#include <cmath>
#include <unordered_map>

#include "tapegrad/autograd/error.hpp"

namespace tapegrad::lab {

namespace {

void check(const std::vector<std::int64_t>& val, std::size_t vocab, const char* who) {
  if (val.size() < 2) throw Error(std::string(who) + ": the validation stream has no label (fewer than 2 characters)");
  if (vocab == 0) throw Error(std::string(who) + ": an empty vocabulary");
}

}  // namespace

namespace {

// The add-one unigram of the train stream: p(c) for every id.
std::vector<double> unigram(const std::vector<std::int64_t>& train, std::size_t vocab) {
  std::vector<double> p(vocab, 1.0);
  for (std::int64_t c : train) p.at(static_cast<std::size_t>(c)) += 1;
  for (double& x : p) x /= static_cast<double>(train.size() + vocab);
  return p;
}

}  // namespace

double unigram_bpc(const std::vector<std::int64_t>& train, const std::vector<std::int64_t>& val, std::size_t vocab) {
  check(val, vocab, "unigram_bpc");
  const std::vector<double> p = unigram(train, vocab);
  double bits = 0.0;
  for (std::size_t i = 1; i < val.size(); ++i) bits -= std::log2(p.at(static_cast<std::size_t>(val[i])));
  return bits / static_cast<double>(val.size() - 1);
}

double bigram_bpc(const std::vector<std::int64_t>& train, const std::vector<std::int64_t>& val, std::size_t vocab) {
  check(val, vocab, "bigram_bpc");
  const std::vector<double> p = unigram(train, vocab);
  const double prior = static_cast<double>(vocab);  // add-one's pseudo-counts per context
  // Sparse: V² pairs would be 6.6 M entries for the poems' 2,578 characters, few of them seen.
  std::unordered_map<std::uint64_t, double> pairs;
  std::vector<double> firsts(vocab, 0.0);
  const auto key = [vocab](std::int64_t a, std::int64_t c) { return static_cast<std::uint64_t>(a) * vocab + c; };
  for (std::size_t i = 1; i < train.size(); ++i) {
    pairs[key(train[i - 1], train[i])] += 1;
    firsts.at(static_cast<std::size_t>(train[i - 1])) += 1;
  }
  double bits = 0.0;
  for (std::size_t i = 1; i < val.size(); ++i) {
    const auto it = pairs.find(key(val[i - 1], val[i]));
    const double n = it == pairs.end() ? 0.0 : it->second;
    const auto c = static_cast<std::size_t>(val[i]), a = static_cast<std::size_t>(val[i - 1]);
    bits -= std::log2((n + prior * p.at(c)) / (firsts.at(a) + prior));
  }
  return bits / static_cast<double>(val.size() - 1);
}

}  // namespace tapegrad::lab
