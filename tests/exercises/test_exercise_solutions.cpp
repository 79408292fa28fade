// The grader on correct code: every reference solution (exercises/solutions/) passes every check, and
// so do correct solutions written differently (Welford, the backward via x̂ in xtensor expressions).
// And on learner code that goes wrong: a skeleton, code that throws, returns the wrong shape or NaN,
// segfaults or loops forever gets a clear report, and the grader (this process) lives on.
#include "exercise_test_common.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace sol1 {
#include "../../exercises/solutions/01_residual_solution.cpp"
}
namespace sol2 {
#include "../../exercises/solutions/02_layer_norm_forward_solution.cpp"
}
namespace sol3 {
#include "../../exercises/solutions/03_layer_norm_backward_solution.cpp"
}
namespace sol4 {
#include "../../exercises/solutions/04_rms_norm_solution.cpp"
}
namespace sol5 {
#include "../../exercises/solutions/05_batch_norm_solution.cpp"
}
namespace sol6 {
#include "../../exercises/solutions/06_ffn_solution.cpp"
}
namespace sol7 {
#include "../../exercises/solutions/07_blocks_solution.cpp"
}
namespace sol8 {
#include "../../exercises/solutions/08_softmax_backward_solution.cpp"
}
namespace sol9 {
#include "../../exercises/solutions/09_attention_backward_solution.cpp"
}
namespace sol10 {
#include "../../exercises/solutions/10_adam_step_solution.cpp"
}
namespace welford {
#include "alternatives/02_layer_norm_forward_welford.cpp"
}
namespace via_xhat {
#include "alternatives/03_layer_norm_backward_via_xhat.cpp"
}
namespace skeleton {
#include "../../exercises/03_layer_norm_backward.cpp"
}
namespace segfault {
#include "faults/02_layer_norm_forward_segfault.cpp"
}
namespace endless {
#include "faults/02_layer_norm_forward_endless_loop.cpp"
}
namespace throws {
#include "faults/02_layer_norm_forward_throws.cpp"
}
namespace wrong_shape {
#include "faults/02_layer_norm_forward_wrong_shape.cpp"
}
namespace returns_nan {
#include "faults/02_layer_norm_forward_nan.cpp"
}

using namespace tapegrad::exercise;

namespace {

void check_passes(const Report& r) {
  INFO(r.to_string());
  CHECK(r.passed);
  CHECK(r.failed_count() == 0);
  CHECK(r.rows.size() >= 5);
  CHECK(r.result_line() == "result: pass");
  CHECK(r.diagnosis.empty());
}

}  // namespace

TEST_CASE("exercise: every reference solution passes every check", "[exercise]") {
  const Options o = english();
  check_passes(check_residual(sol1::residual_forward, sol1::residual_backward, o));
  check_passes(check_layer_norm_forward(sol2::layer_norm_forward, o));
  check_passes(check_layer_norm_backward(sol3::layer_norm_backward, o));
  check_passes(check_rms_norm(sol4::rms_norm_forward, sol4::rms_norm_backward, o));
  check_passes(check_batch_norm(sol5::batch_norm_forward, sol5::batch_norm_backward, o));
  check_passes(check_ffn(sol6::ffn_forward, sol6::ffn_backward, o));
  check_passes(check_add_and_norm(sol7::add_and_norm_forward, sol7::add_and_norm_backward, o));
  check_passes(check_post_norm(sol7::post_norm_forward, sol7::post_norm_backward, o));
  check_passes(check_pre_norm(sol7::pre_norm_forward, sol7::pre_norm_backward, o));
  check_passes(check_softmax_backward(sol8::softmax_backward, o));
  check_passes(check_attention_backward(sol9::attention_backward, o));
  check_passes(check_adam_step(sol10::adam_step, o));
}

TEST_CASE("exercise: correct solutions written differently pass (Welford, backward via x̂)", "[exercise]") {
  check_passes(check_layer_norm_forward(welford::layer_norm_forward, english()));
  check_passes(check_layer_norm_backward(via_xhat::layer_norm_backward, english()));
}

TEST_CASE("exercise: the cases cannot be fooled", "[exercise]") {
  // the seed's worked example is a case, and LN's forward is compared on it
  const Report r = check_layer_norm_forward(sol2::layer_norm_forward, english());
  CHECK(r.rows.at(0).case_name == "case 0: worked example x = [3, 4, 5]");
  // a backward that ignores dy entirely would pass a test with sum(LN(x)) (dx = 0): not these
  const Report zero = check_layer_norm_backward(
      [](const tapegrad::Array&, const tapegrad::Array& x, const tapegrad::Array& g, double) {
        return NormGrads{tapegrad::Array(xt::zeros<double>(x.shape())), tapegrad::Array(xt::zeros<double>(g.shape())),
                         tapegrad::Array(xt::zeros<double>(g.shape()))};
      },
      english());
  CHECK_FALSE(zero.passed);
  CHECK(zero.diagnosis == "unknown");
}

TEST_CASE("exercise: E[x²] − E[x]² written another way is still one_pass_variance", "[exercise]") {
  // its rounding noise differs from the catalogue's: matched by where it fails, not by value
  const Report r = check_layer_norm_forward(
      [](const tapegrad::Array& x, const tapegrad::Array& gamma, const tapegrad::Array& beta, double eps) {
        const std::size_t N = x.shape().back();
        tapegrad::Array y = x;
        for (std::size_t r = 0; r < x.size() / N; ++r) {
          double mean = 0, mean_sq = 0;
          for (std::size_t j = N; j-- > 0;) mean += x.data()[r * N + j] / N, mean_sq += x.data()[r * N + j] * x.data()[r * N + j] / N;
          const double var = mean_sq - mean * mean;
          for (std::size_t j = 0; j < N; ++j)
            y.data()[r * N + j] = gamma(j) * (x.data()[r * N + j] - mean) / std::sqrt(var + eps) + beta(j);
        }
        return y;
      },
      english());
  INFO(r.to_string());
  CHECK(r.diagnosis == "one_pass_variance");
}

TEST_CASE("exercise: a skeleton is reported as not implemented", "[exercise]") {
  const Report r = check_layer_norm_backward(skeleton::layer_norm_backward, english());
  INFO(r.to_string());
  CHECK_FALSE(r.passed);
  CHECK(r.diagnosis == "not_implemented");
  CHECK(r.rows.at(0).detail == "not implemented yet: layer_norm_backward");
  CHECK(r.first_failing_case == 0);
}

TEST_CASE("exercise: learner code that crashes, loops, throws, returns a wrong shape or NaN is reported", "[exercise]") {
  Options o = english();
  o.timeout_seconds = 1.5;
  SECTION("segfault") {
    // as a kernel does, this process has its own SIGSEGV handler: the child must not run it
    struct sigaction mine {}, old {};
    mine.sa_handler = [](int) { std::_Exit(0); };
    sigaction(SIGSEGV, &mine, &old);
    const Report r = check_layer_norm_forward(segfault::layer_norm_forward, o);
    sigaction(SIGSEGV, &old, nullptr);
    INFO(r.to_string());
#if defined(__SANITIZE_ADDRESS__)
    // In the ASan build the child's AddressSanitizer catches the signal and reports it: a memory error
    // at the learner's line, as scripts/exercise.sh (which builds the learner's file with ASan) says it.
    CHECK(r.diagnosis == "memory_error");
    CHECK_THAT(r.location, Catch::Contains("02_layer_norm_forward_segfault.cpp:"));
#else
    CHECK(r.diagnosis == "crashed");
    CHECK_THAT(r.rows.at(0).detail, Catch::Contains("SIGSEGV"));
#endif
  }
  SECTION("endless loop") {
    const Report r = check_layer_norm_forward(endless::layer_norm_forward, o);
    INFO(r.to_string());
    CHECK(r.diagnosis == "timeout");
    CHECK_THAT(r.rows.at(0).detail, Catch::Contains("did not finish within 1.5 s"));
    CHECK_THAT(r.rows.at(1).detail, Catch::Contains("not run: an earlier case timed out"));
  }
  SECTION("exception") {
    const Report r = check_layer_norm_forward(throws::layer_norm_forward, o);
    CHECK(r.diagnosis == "exception");
    CHECK(r.rows.at(0).detail == "my layer_norm_forward cannot handle this yet");
  }
  SECTION("wrong shape") {
    const Report r = check_layer_norm_forward(wrong_shape::layer_norm_forward, o);
    CHECK(r.diagnosis == "unknown");
    CHECK(r.rows.at(3).detail == "shape (3), expected (3, 5)");
  }
  SECTION("NaN") {
    const Report r = check_layer_norm_forward(returns_nan::layer_norm_forward, o);
    CHECK(r.diagnosis == "unknown");
    CHECK(r.rows.at(3).detail == "NaN at (0, 0), (1, 0), (2, 0) (3 of 15 elements)");
  }
  SECTION("printing and exit()") {
    const Report r = check_layer_norm_forward(
        [](const tapegrad::Array& x, const tapegrad::Array&, const tapegrad::Array&, double) -> tapegrad::Array {
          std::cout << "debug: x has " << x.size() << " elements" << std::endl;
          std::exit(3);
        },
        o);
    INFO(r.to_string());
    CHECK(r.diagnosis == "crashed");
    CHECK(r.rows.at(0).detail == "ended with exit status 3 without an answer");
    CHECK(r.printed == "debug: x has 3 elements\n");
  }
  // ... and the grader lives on: the next check in this process passes
  check_passes(check_layer_norm_forward(sol2::layer_norm_forward, o));
}

TEST_CASE("exercise: the report in Chinese, as HTML, and one case in this process (gdb)", "[exercise]") {
  namespace m = tapegrad::exercise;
  Options zh;
  zh.lang = "zh";
  const Report r = check_layer_norm_forward(
      [](const tapegrad::Array& x, const tapegrad::Array& g, const tapegrad::Array& b, double eps) {
        return sol2::layer_norm_forward(x, b, g, eps);  // γ and β swapped
      },
      zh);
  CHECK(r.diagnosis == "gamma_beta_swapped");
  const std::string text = r.to_string();
  CHECK_THAT(text, Catch::Contains("诊断：gamma_beta_swapped"));
  CHECK_THAT(text, Catch::Contains("γ 和 β 写反了"));
  CHECK_THAT(text, Catch::EndsWith("result: fail diagnosis=gamma_beta_swapped\n"));
  const std::string html = r.to_html();
  CHECK_THAT(html, Catch::Contains("<tr style=\"background:#fce8e6\">"));  // red rows
  CHECK_THAT(check_layer_norm_forward(sol2::layer_norm_forward).to_html(),
             Catch::Contains("<tr style=\"background:#e6f4ea\">"));  // green rows
  CHECK_THAT(html, Catch::Contains("<code>gamma_beta_swapped</code>"));
  CHECK(m::language("") == "en");

  Options one = english();
  one.only_case = 3;
  one.isolate = false;
  const Report single = check_layer_norm_forward(sol2::layer_norm_forward, one);
  REQUIRE(single.rows.size() == 1);
  CHECK(single.rows[0].case_index == 3);
}
