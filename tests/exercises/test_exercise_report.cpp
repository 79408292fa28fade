// The report as a learner reads it: a diagnosis when some cases throw and one gives a wrong value
// (the exception's hint kept), an exception of several lines under its column, the unknown hint
// built from what the report shows, digits enough to see the difference, a scalar without an index,
// and the Chinese report's brackets.
#include "exercise_test_common.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

namespace report_ln_backward {
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
}
namespace report_rms {
#include "learner_style/04_rms_norm_xtensor.cpp"
}
namespace report_ln_forward {
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
}
#define SLIP_WRONG_AXIS
namespace report_ln_axis {
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
}
#undef SLIP_WRONG_AXIS
#define SLIP_EPS_OUTSIDE_SQRT
namespace report_ln_eps {
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
}
#undef SLIP_EPS_OUTSIDE_SQRT
#define SLIP_PROJECTION_TERM_MISSING
namespace report_rms_projection {
#include "learner_style/04_rms_norm_xtensor.cpp"
}
#undef SLIP_PROJECTION_TERM_MISSING
#define SLIP_EPS_OUTSIDE_SQRT
namespace report_rms_eps {
#include "learner_style/04_rms_norm_xtensor.cpp"
}
#undef SLIP_EPS_OUTSIDE_SQRT
#define SLIP_UNBIASED_VARIANCE
namespace report_bn_unbiased {
#include "learner_style/05_batch_norm_xtensor.cpp"
}
#undef SLIP_UNBIASED_VARIANCE

using namespace tapegrad::exercise;
using tapegrad::Array;

namespace {

// The reductions without keep_dims: rank 1 is right, (5, 1) broadcasts to (5, 5), the others throw.
Array no_keep_dims(const Array& x, const Array& gamma, const Array& beta, double eps) {
  const std::size_t last = x.dimension() - 1;
  Array mu = xt::mean(x, {last});
  Array centered = x - mu;
  Array var = xt::mean(centered * centered, {last});
  return gamma * centered / xt::sqrt(var + eps) + beta;
}

// One Adam step with m and v right and the update twice too large; the step counted only in a local.
AdamState adam_update_wrong(const AdamState& s, const Array& g, double lr, double b1, double b2, double eps) {
  AdamState n = s;
  const long t = s.step + 1;
  n.step = s.step;  // not stored: the step row is wrong too
  n.m = b1 * s.m + (1 - b1) * g;
  n.v = b2 * s.v + (1 - b2) * g * g;
  Array mhat = n.m / (1 - std::pow(b1, t)), vhat = n.v / (1 - std::pow(b2, t));
  n.param = s.param - 2 * lr * mhat / (xt::sqrt(vhat) + eps);
  return n;
}

}  // namespace

TEST_CASE("exercise: exceptions in some cases and a wrong value in one: a diagnosis and the exception's hint", "[exercise]") {
  const Report r = check_layer_norm_forward(no_keep_dims, english());
  INFO(r.to_string());
  CHECK_FALSE(r.passed);
  CHECK(r.diagnosis == "exception");
  CHECK_THAT(r.hint, Catch::Contains("print the shapes"));
  CHECK_THAT(r.hint, Catch::Contains("case 7 ran and gave wrong values"));
}

TEST_CASE("exercise: an exception's message of several lines stays under its column", "[exercise]") {
  const Report r = check_layer_norm_forward(
      [](const Array&, const Array&, const Array&, double) -> Array {
        throw std::runtime_error("first line\nsecond line");
      },
      english());
  const std::string text = r.to_string();
  INFO(text);
  std::istringstream lines(text);
  std::string line, previous;
  int seen = 0;
  while (std::getline(lines, line)) {
    const std::size_t at = line.find("second line");
    if (at != std::string::npos) {
      ++seen;
      // in characters (a case's name has "·"; no CJK in the English report)
      auto chars = [](const std::string& s) {
        std::size_t n = 0;
        for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
        return n;
      };
      CHECK(chars(previous.substr(0, previous.find("first line"))) == at);
      CHECK(line.substr(0, at) == std::string(at, ' '));
    }
    previous = line;
  }
  CHECK(seen == 8);
  CHECK_THAT(r.to_html(), Catch::Contains("first line<br>second line"));
}

TEST_CASE("exercise: the unknown hint says what the report shows", "[exercise]") {
  SECTION("only shapes are wrong") {
    const Report r = check_layer_norm_backward(
        [](const Array& dy, const Array& x, const Array& gamma, double eps) {
          NormGrads g = report_ln_backward::layer_norm_backward(dy, x, gamma, eps);
          g.dgamma.reshape({1, g.dgamma.size()});  // sum with keep_dims: the values right, the shape not
          return g;
        },
        english());
    INFO(r.to_string());
    CHECK(r.diagnosis == "unknown");
    CHECK_THAT(r.hint, Catch::Contains("Only the shapes are wrong (dgamma (1, 3), expected (3)"));
  }
  SECTION("the forward right, the backward not what finite differences of it say") {
    const Report r = check_rms_norm(report_rms::rms_norm_forward,
                                    [](const Array& dy, const Array& x, const Array& gamma, double eps) {
                                      NormGrads g = report_rms::rms_norm_backward(dy, x, gamma, eps);
                                      g.dx = g.dx + 0.01;
                                      return g;
                                    },
                                    english());
    INFO(r.to_string());
    CHECK(r.diagnosis == "unknown");
    CHECK_THAT(r.hint, Catch::Contains("Your forward is right, and dx disagrees with finite differences of it: the bug "
                                       "is in the backward."));
  }
  SECTION("Adam's m and v right, the update not") {
    const Report r = check_adam_step(adam_update_wrong, english());
    INFO(r.to_string());
    CHECK(r.diagnosis == "unknown");
    CHECK_THAT(r.hint, Catch::Contains("m, v are right on every case and param, step not: look at how param, step is "
                                       "computed from them."));
    // a scalar has no worst element to point at
    bool step_row = false;
    for (const CheckRow& row : r.rows)
      if (row.output == "step" && !row.passed) {
        step_row = true;
        CHECK(row.detail.rfind("got 0, expected ", 0) == 0);
      }
    CHECK(step_row);
  }
}

TEST_CASE("exercise: a failing row prints digits enough to show the difference", "[exercise]") {
  const Report r = check_layer_norm_forward(
      [](const Array& x, const Array& g, const Array& b, double eps) {
        return Array(report_ln_forward::layer_norm_forward(x, g, b, eps) * (1 + 3e-6));
      },
      english());
  INFO(r.to_string());
  int failing = 0;
  for (const CheckRow& row : r.rows) {
    const std::size_t got = row.detail.find("got "), expected = row.detail.find(", expected "),
                      error = row.detail.find(", error ");
    if (row.passed || got == std::string::npos) continue;
    ++failing;
    const std::string g = row.detail.substr(got + 4, expected - got - 4);
    const std::string e = row.detail.substr(expected + 11, error - expected - 11);
    CHECK(g != e);
  }
  CHECK(failing > 0);
}

TEST_CASE("exercise: the Chinese report's brackets match", "[exercise]") {
  Options zh;
  zh.lang = "zh";
  const Report r = check_layer_norm_forward(
      [](const Array& x, const Array& g, const Array& b, double eps) {
        return report_ln_forward::layer_norm_forward(x, b, g, eps);
      },
      zh);
  CHECK_THAT(r.to_string(), Catch::Contains("第一个失败的用例：0（layer_norm_forward；--gdb 会停在这里）"));
}

TEST_CASE("exercise: each exercise has hints with its own formula (RMSNorm and BatchNorm with M rows) and English hints in English", "[exercise]") {
  const Report rms = check_rms_norm(report_rms_projection::rms_norm_forward, report_rms_projection::rms_norm_backward, english());
  CHECK(rms.diagnosis == "projection_term_missing");
  CHECK_THAT(rms.hint, Catch::Contains("dx = (g − x̂·mean(g·x̂)) / rms"));
  CHECK_THAT(rms.hint, !Catch::Contains("(g − mean(g)"));
  const Report rms_eps = check_rms_norm(report_rms_eps::rms_norm_forward, report_rms_eps::rms_norm_backward, english());
  CHECK(rms_eps.diagnosis == "eps_outside_sqrt");
  CHECK_THAT(rms_eps.hint, Catch::Contains("sqrt(mean(x²) + ε)"));
  CHECK_THAT(rms_eps.hint, !Catch::Contains("-1.21"));
  const Report batch = check_batch_norm(report_bn_unbiased::batch_norm_forward, report_bn_unbiased::batch_norm_backward, english());
  CHECK(batch.diagnosis == "unbiased_variance");
  CHECK_THAT(batch.hint, Catch::Contains("M − 1"));
  CHECK_THAT(batch.hint, !Catch::Contains("N − 1"));
  const Report axis = check_layer_norm_forward(report_ln_axis::layer_norm_forward, english());
  CHECK(axis.diagnosis == "wrong_axis");
  CHECK_THAT(axis.hint, !Catch::Contains("误区"));
  Options zh;
  zh.lang = "zh";
  CHECK_THAT(check_batch_norm(report_bn_unbiased::batch_norm_forward, report_bn_unbiased::batch_norm_backward, zh).hint,
             Catch::Contains("M − 1"));
}

TEST_CASE("exercise: a mistake that explains only some failing cases is named partly, with those cases", "[exercise]") {
  // eps outside the root everywhere, and something else on the rank-3 case (case 4)
  const Report r = check_layer_norm_forward(
      [](const Array& x, const Array& g, const Array& b, double eps) {
        Array y = report_ln_eps::layer_norm_forward(x, g, b, eps);
        if (x.dimension() == 3) y = y * 2.0;
        return y;
      },
      english());
  INFO(r.to_string());
  CHECK(r.diagnosis == "eps_outside_sqrt");
  CHECK(r.partly_cases.size() >= 2);
  CHECK(std::find(r.partly_cases.begin(), r.partly_cases.end(), 4) == r.partly_cases.end());
  CHECK_THAT(r.hint, Catch::StartsWith("Partly: this mistake reproduces your results on cases 0, "));
  CHECK_THAT(r.hint, Catch::Contains("but not on case 4, which fail another way"));
}
