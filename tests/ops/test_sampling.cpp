// sampling_probabilities / sample / sample_rows (ops/sampling.hpp): greedy, temperature, top-k, top-p by
// Hugging Face's rules on hand-computed cases (edges included), 20000 seeded draws against the
// distribution by a chi-square test, one draw per row, determinism, and the error messages.
#include <cmath>
#include <limits>
#include <numeric>

#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// Logits (V) from a list of values.
Tensor logits_of(std::initializer_list<double> values) { return Tensor(Array(xt::xtensor<double, 1>(values))); }

// Logits whose softmax is `probabilities` (up to rounding): z = log p.
Tensor logits_for(std::initializer_list<double> probabilities) {
  Array z = xt::xtensor<double, 1>(probabilities);
  for (double& v : z) v = std::log(v);
  return Tensor(z);
}

Array probabilities_of(const Tensor& logits, SamplingOptions options) { return sampling_probabilities(logits, options); }

// softmax written out: exp(z − max) / Σ.
Array softmax_of(const Array& z) {
  const double largest = xt::amax(z)();
  Array e = xt::exp(z - largest);
  const double total = xt::sum(e)();
  return e / total;
}

std::size_t kept(const Array& p) { return static_cast<std::size_t>(xt::sum(xt::not_equal(p, 0.0))()); }

// P(χ² > x) for a chi-square distribution with df degrees of freedom: 1 − P(df/2, x/2), P the regularized
// lower incomplete gamma function by its series x^s e^−x / Γ(s + 1) · Σ_n x^n / ((s + 1)···(s + n)).
// Past x/2 = 300 the tail is below 1e-100 for any df used here: 0.
double chi_square_tail(double x, std::size_t df) {
  const double s = static_cast<double>(df) / 2.0, h = x / 2.0;
  if (h > 300.0) return 0.0;
  double term = 1.0, series = 1.0;
  for (int n = 1; n < 2000 && term > 1e-17 * series; ++n) series += term *= h / (s + n);
  return 1.0 - std::exp(s * std::log(h) - h - std::lgamma(s + 1.0)) * series;
}

}  // namespace

TEST_CASE("sampling: temperature 0 is the argmax, lowest index among ties, and draws nothing", "[ops][sampling]") {
  const Tensor z = logits_of({1.0, 3.0, 2.0, 3.0, minus_inf});
  CHECK((probabilities_of(z, {0.0}) == Array(xt::xtensor<double, 1>({0, 1, 0, 0, 0}))));
  Generator gen(7), untouched(7);
  CHECK(sample(z, {0.0}, gen) == 1);
  const Tensor rows(matrix({{0, 5, 5}, {9, 1, 9}}));
  CHECK(sample_rows(rows, {0.0}, gen) == std::vector<std::int64_t>{1, 0});
  CHECK(gen.uniform() == untouched.uniform());  // greedy consumed no draw
}

TEST_CASE("sampling: the distribution is softmax(z / T)", "[ops][sampling]") {
  const Array z = xt::xtensor<double, 1>({0.5, -1.0, 2.0, 0.1, minus_inf});
  for (const double t : {0.5, 1.0, 3.0}) {
    INFO("temperature " << t);
    const Array p = probabilities_of(Tensor(z), {t});
    CHECK(allclose(p, softmax_of(z / t), 1e-14, 1e-16));
    CHECK(p(4) == 0.0);  // a banned token stays banned
  }
  // Higher temperature flattens: the most likely token loses mass.
  CHECK(probabilities_of(Tensor(z), {3.0})(2) < probabilities_of(Tensor(z), {1.0})(2));
  CHECK(probabilities_of(Tensor(z), {1.0})(2) < probabilities_of(Tensor(z), {0.5})(2));
  // One distribution per row for (B, V).
  const Array both_rows = probabilities_of(Tensor(matrix({{0, 1, 2}, {2, 2, 0}})), {2.0});
  CHECK(allclose(Array(xt::view(both_rows, 1, xt::all())), softmax_of(xt::xtensor<double, 1>({1, 1, 0})), 1e-15, 0));
}

TEST_CASE("sampling: a tiny temperature is greedy in the limit, never NaN", "[ops][sampling]") {
  // z / T overflows to ±inf for T = 1e-310; the limit of softmax(z / T) is all the mass on the argmax.
  const Array p = probabilities_of(logits_of({1.0, 3.0, -2.0}), {1e-310});
  CHECK((p == Array(xt::xtensor<double, 1>({0, 1, 0}))));
}

TEST_CASE("sampling: top_k keeps the k largest, ties with the k-th too, top_k = V is off", "[ops][sampling]") {
  // Distinct logits: exactly k kept, the k largest, renormalised.
  const Array z = xt::xtensor<double, 1>({0.3, 2.0, -1.0, 1.1, 0.7, -0.2});
  for (std::size_t k = 1; k <= 6; ++k) {
    INFO("top_k " << k);
    SamplingOptions options;
    options.top_k = k;
    const Array p = probabilities_of(Tensor(z), options);
    CHECK(kept(p) == k);
    Array want = z;
    Array sorted = xt::sort(z);
    for (double& v : want)
      if (v < sorted(6 - k)) v = minus_inf;
    CHECK(allclose(p, softmax_of(want), 1e-15, 0));
  }
  SamplingOptions two;
  two.top_k = 2;
  // Ties with the 2nd largest stay (TopKLogitsWarper: scores < k-th value are removed).
  CHECK(kept(probabilities_of(logits_of({1, 3, 2, 3, 3}), two)) == 3);
  CHECK(kept(probabilities_of(logits_of({1, 4, 2, 2, 0}), two)) == 3);
  // top_k = V changes nothing.
  SamplingOptions all;
  all.top_k = 6;
  CHECK((probabilities_of(Tensor(z), all) == probabilities_of(Tensor(z), {})));
}

TEST_CASE("sampling: top_p keeps the smallest set reaching p, the crossing token included", "[ops][sampling]") {
  const auto top_p = [](double p) {
    SamplingOptions options;
    options.top_p = p;
    return options;
  };
  SECTION("hand-computed: probabilities 0.1, 0.6, 0.3 (descending 0.6, 0.3, 0.1; running sums 0.6, 0.9, 1)") {
    const Tensor z = logits_for({0.1, 0.6, 0.3});
    const Array only_1 = xt::xtensor<double, 1>({0, 1, 0});
    const Array ones_1_2 = xt::xtensor<double, 1>({0, 0.6 / 0.9, 0.3 / 0.9});
    CHECK(allclose(probabilities_of(z, top_p(0.5)), only_1, 1e-15, 0));    // 0.6 reaches 0.5
    CHECK(allclose(probabilities_of(z, top_p(0.6001)), ones_1_2, 1e-14, 0)); // 0.6 < p: the 0.3 crosses, kept
    CHECK(allclose(probabilities_of(z, top_p(0.8)), ones_1_2, 1e-14, 0));
    CHECK(allclose(probabilities_of(z, top_p(0.95)), probabilities_of(z, {}), 1e-15, 0));  // needs all three
    CHECK(allclose(probabilities_of(z, top_p(1e-12)), only_1, 1e-15, 0));   // tiny p: the argmax alone
    CHECK((probabilities_of(z, top_p(1.0)) == probabilities_of(z, {})));    // p = 1 is off
  }
  SECTION("p exactly a running sum (equal logits: 1/8 each, sums exact in binary)") {
    // Descending order among ties is by index. p = 3/8: tokens 0, 1, 2 reach it exactly, nothing more.
    const Tensor z = logits_of({0, 0, 0, 0, 0, 0, 0, 0});
    const Array three = xt::xtensor<double, 1>({1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0, 0, 0, 0});
    CHECK(allclose(probabilities_of(z, top_p(0.375)), three, 1e-15, 0));
    CHECK(kept(probabilities_of(z, top_p(0.375 + 1e-9))) == 4);  // just above: the 4th token crosses
    CHECK(kept(probabilities_of(z, top_p(0.375 - 1e-9))) == 3);  // just below: the 3rd crosses
    CHECK(kept(probabilities_of(z, top_p(0.125))) == 1);         // exactly the largest's mass
    CHECK(kept(probabilities_of(z, top_p(1e-300))) == 1);        // never drop the largest
  }
  SECTION("a banned token has no mass and never counts") {
    const Array p = probabilities_of(logits_of({0, minus_inf, 0, 0, 0}), top_p(0.5));
    CHECK(allclose(p, Array(xt::xtensor<double, 1>({0.5, 0, 0.5, 0, 0})), 1e-15, 0));
  }
  SECTION("top-k first, then top-p on what is left (Hugging Face's warper order)") {
    // 0.4, 0.3, 0.2, 0.1: top_k = 2 leaves 4/7, 3/7; top_p = 0.5 then keeps 4/7 alone.
    // (top-p first would keep 0.4 + 0.3 and give 4/7, 3/7.)
    SamplingOptions options;
    options.top_k = 2;
    options.top_p = 0.5;
    CHECK(allclose(probabilities_of(logits_for({0.4, 0.3, 0.2, 0.1}), options),
                   Array(xt::xtensor<double, 1>({1, 0, 0, 0})), 1e-15, 0));
  }
  SECTION("temperature before top-p: a flatter distribution keeps more tokens") {
    const Tensor z = logits_for({0.7, 0.2, 0.1});
    SamplingOptions cold = top_p(0.65), hot = top_p(0.65);
    hot.temperature = 4.0;  // probabilities ∝ 0.7^¼, 0.2^¼, 0.1^¼ ≈ 0.44, 0.30, 0.26
    CHECK(kept(probabilities_of(z, cold)) == 1);
    CHECK(kept(probabilities_of(z, hot)) == 2);
  }
}

TEST_CASE("sampling: 20000 seeded draws follow sampling_probabilities (chi-square)", "[ops][sampling][statistics]") {
  // Pearson's statistic Σ (observed − N p)² / (N p) over the tokens with mass has, for N draws from p,
  // a chi-square distribution with (tokens with mass − 1) degrees of freedom. We require its tail
  // probability above 1e-6: for df = 6 (the first case) that is χ² < 38.26, for df = 4 (the second,
  // 5 tokens kept) χ² < 33.38. A correct sampler
  // fails this once in a million seeds (and the seed is fixed); a sampler off by one index, or drawing
  // from the wrong distribution, gives χ² in the hundreds or thousands.
  // The tail function itself, against closed forms: df = 2 is exp(−x/2); df = 6, 4 at the bounds above are 1e-6;
  // df = 1 at 1.96² is the two-sided normal tail 0.05.
  CHECK(chi_square_tail(4.0, 2) == Approx(std::exp(-2.0)).epsilon(1e-12));
  CHECK(chi_square_tail(38.2583, 6) == Approx(1e-6).epsilon(1e-4));
  CHECK(chi_square_tail(33.3768, 4) == Approx(1e-6).epsilon(1e-4));
  CHECK(chi_square_tail(1.959964 * 1.959964, 1) == Approx(0.05).epsilon(1e-5));

  const Tensor z = logits_of({1.2, -0.4, 0.3, minus_inf, 2.0, 0.0, -1.5, 0.8});
  SamplingOptions tempered;
  tempered.temperature = 0.8;
  SamplingOptions filtered;
  filtered.top_k = 6;
  filtered.top_p = 0.9;
  for (const SamplingOptions& options : {tempered, filtered}) {
    INFO("temperature " << options.temperature << ", top_k " << options.top_k << ", top_p " << options.top_p);
    const Array p = sampling_probabilities(z, options);
    const std::size_t n = 20000, df = kept(p) - 1;
    CHECK(df == (options.top_k == 0 ? 6u : 4u));
    Generator gen(2026);
    std::vector<double> observed(p.size(), 0.0);
    for (std::size_t i = 0; i < n; ++i) observed.at(static_cast<std::size_t>(sample(z, options, gen))) += 1.0;
    double chi_square = 0.0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (p(j) == 0.0) {
        CHECK(observed[j] == 0.0);  // a token without mass is never drawn
        continue;
      }
      const double expected = n * p(j);
      chi_square += (observed[j] - expected) * (observed[j] - expected) / expected;
    }
    INFO("chi-square " << chi_square << " with " << df << " degrees of freedom");
    CHECK(chi_square_tail(chi_square, df) > 1e-6);
  }
}

TEST_CASE("sampling: sample_rows is one draw per row, in order, the same seed gives the same tokens",
          "[ops][sampling]") {
  const Tensor rows(matrix({{0.1, 2.0, -1.0, 0.5}, {1.0, 1.0, 1.0, 1.0}, {-3.0, 0.0, 3.0, 0.2}}));
  const Array p = sampling_probabilities(rows, {});
  Generator gen(11), by_hand(11);
  for (int repeat = 0; repeat < 50; ++repeat) {
    const std::vector<std::int64_t> got = sample_rows(rows, {}, gen);
    REQUIRE(got.size() == 3);
    for (std::size_t row = 0; row < 3; ++row) {
      // Inverse CDF with this row's draw: the first index whose running sum exceeds u.
      const double u = by_hand.uniform();
      double cumulative = 0.0;
      std::size_t want = 0;
      while (want < 3 && !(u < (cumulative += p(row, want)))) ++want;
      CHECK(got[row] == static_cast<std::int64_t>(want));
    }
  }
  // sample on each row, with one generator, gives the same as sample_rows.
  Generator a(12), b(12);
  const std::vector<std::int64_t> all_rows = sample_rows(rows, {}, a);
  for (std::size_t row = 0; row < 3; ++row)
    CHECK(sample(Tensor(Array(xt::view(rows.value(), row, xt::all()))), {}, b) == all_rows[row]);

  SamplingOptions options;
  options.temperature = 1.3;
  options.top_p = 0.95;
  const auto tokens = [&](std::uint64_t seed) {
    Generator g(seed);
    std::vector<std::int64_t> out;
    for (int i = 0; i < 100; ++i) out.push_back(sample(Tensor(Array(xt::view(rows.value(), 0, xt::all()))), options, g));
    return out;
  };
  CHECK(tokens(5) == tokens(5));
  CHECK(tokens(5) != tokens(6));
}

TEST_CASE("sampling: bad logits and options name the function, the value and what was expected",
          "[ops][sampling][errors]") {
  const Tensor z = logits_of({0.0, 1.0, 2.0, 3.0, 4.0});
  const auto message_for = [](const Tensor& logits, SamplingOptions options) {
    return message_of([&] { sampling_probabilities(logits, options); });
  };
  CHECK_THAT(message_for(Tensor(Array(xt::zeros<double>({0}))), {}),
             Catch::Contains("sampling_probabilities: logits are empty, shape (0"));
  CHECK_THAT(message_of([] { sample(Tensor(Array(xt::zeros<double>({0})))); }),
             Catch::Contains("sample: logits are empty"));
  CHECK_THAT(message_of([] { sample_rows(Tensor(Array(xt::zeros<double>({2, 0})))); }),
             Catch::Contains("sample_rows: logits are empty, shape (2, 0)"));
  CHECK_THAT(message_for(logits_of({0.0, 1.0, std::nan("")}), {}),
             Catch::Contains("sampling_probabilities: logit nan at row 0, index 2") &&
                 Catch::Contains("expected finite logits, or -inf for a banned token"));
  CHECK_THAT(message_for(Tensor(matrix({{0, 1}, {std::numeric_limits<double>::infinity(), 0}})), {}),
             Catch::Contains("logit inf at row 1, index 0"));
  CHECK_THAT(message_of([] { sample(logits_of({minus_inf, minus_inf})); }),
             Catch::Contains("sample: every logit of row 0 is -inf") &&
                 Catch::Contains("expected at least one finite logit"));
  SamplingOptions cold;
  cold.temperature = -0.5;
  CHECK_THAT(message_for(z, cold), Catch::Contains("sampling_probabilities: invalid temperature=-0.5 (expected >= 0"));
  cold.temperature = std::nan("");
  CHECK_THAT(message_for(z, cold), Catch::Contains("invalid temperature=nan"));
  for (const double bad : {0.0, -0.1, 1.5, std::nan("")}) {
    INFO("top_p " << bad);
    SamplingOptions options;
    options.top_p = bad;
    CHECK_THAT(message_of([&] { sample(z, options); }),
               Catch::Contains("sample: invalid top_p=") && Catch::Contains("(expected in (0, 1]; 1 means off)"));
  }
  SamplingOptions too_many;
  too_many.top_k = 6;
  CHECK_THAT(message_for(z, too_many),
             Catch::Contains("sampling_probabilities: invalid top_k=6 for 5 logits (expected 0 (off) to 5)"));
  CHECK_THAT(message_for(Tensor(Array(xt::zeros<double>({2, 2, 3}))), {}),
             Catch::Contains("sampling_probabilities: logits must be 1-d (V) or 2-d (B, V), got shape (2, 2, 3)"));
  CHECK_THAT(message_of([] { sample(Tensor(matrix({{0, 1}}))); }),
             Catch::Contains("sample: logits must be 1-d (V)") && Catch::Contains("got shape (1, 2)"));
  CHECK_THAT(message_of([&] { sample_rows(z); }),
             Catch::Contains("sample_rows: logits must be 2-d (B, V)") && Catch::Contains("got shape (5)"));
}
