// Anomaly mode: the first op that makes a NaN/Inf is named, forward and backward.
#include "helpers.hpp"

using namespace tapegrad;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("anomaly mode names the forward op whose output is NaN (log of a negative number)", "[anomaly][debug]") {
  tape().clear();
  Tensor x(Array{1.0, -2.0, 3.0, -4.0}, true, "x");
  detect_anomaly guard;
  Tensor y = exp(x);  // fine: recorded as entry 0
  try {
    Tensor bad = log(x);  // entry 1 would be log: NaN at indices 1 and 3
    FAIL("no AnomalyError was thrown");
  } catch (const AnomalyError& err) {
    INFO(err.what());
    CHECK(err.op == "log");
    CHECK(err.tape_index == 1);
    CHECK_FALSE(err.in_backward);
    CHECK(err.first_bad == 1);
    CHECK(err.bad_count == 2);
    const std::string msg = err.what();
    CHECK(contains(msg, "'log' (tape entry 1) produced 2 NaN values in its output of shape (4)"));
    CHECK(contains(msg, "first at index (1) = nan"));
    CHECK(contains(msg, "Input 0 there is -2"));
    CHECK(contains(msg, "input 0: 'x' (4)"));
    CHECK(contains(msg, "hint: log(x) is NaN for x < 0"));
  }
  CHECK(tape().size() == 1);  // the failing op was not recorded
  tape().clear();
}

TEST_CASE("anomaly mode catches 0/0 and x/0 at the right multi-index, recorded or not", "[anomaly][debug]") {
  tape().clear();
  Tensor a(Array{{1.0, 0.0}, {2.0, 1.0}});
  Tensor b(Array{{1.0, 0.0}, {0.0, 1.0}});
  detect_anomaly guard;
  // No input requires grad: nothing is recorded, but the check still runs.
  try {
    Tensor q = a / b;
    FAIL("no AnomalyError was thrown");
  } catch (const AnomalyError& err) {
    INFO(err.what());
    CHECK(err.op == "div");
    CHECK(err.tape_index == -1);
    CHECK(err.first_bad == 1);
    CHECK(err.bad_count == 2);
    CHECK(contains(err.what(), "(not recorded on the tape) produced 1 NaN and 1 Inf values"));
    CHECK(contains(err.what(), "first at index (0, 1) = nan"));
  }
  // The same under no_grad with inputs that require grad.
  Tensor c(Array{0.0, 1.0}, true, "c");
  no_grad off;
  CHECK_THROWS_AS(c / c, AnomalyError);
}

TEST_CASE("anomaly mode names the backward op whose gradient is Inf (sqrt at 0)", "[anomaly][debug]") {
  tape().clear();
  Tensor x(Array{0.0, 4.0, 9.0}, true, "x");
  detect_anomaly guard;
  Tensor y = sqrt(x);      // entry 0: forward is fine, sqrt(0) = 0
  Tensor loss = sum(y * 2.0);  // entries 1, 2
  try {
    loss.backward();
    FAIL("no AnomalyError was thrown");
  } catch (const AnomalyError& err) {
    INFO(err.what());
    CHECK(err.op == "sqrt");
    CHECK(err.tape_index == 0);
    CHECK(err.in_backward);
    CHECK(err.input == 0);
    CHECK(err.first_bad == 0);
    CHECK(err.bad_count == 1);
    const std::string msg = err.what();
    CHECK(contains(msg, "the backward of 'sqrt' (tape entry 0) produced a gradient with 1 Inf value for input 0 'x' (3)"));
    CHECK(contains(msg, "first at index (0) = inf (input value there: 0)"));
    CHECK(contains(msg, "forward was: sqrt('x' (3)) -> (3)"));
  }
  tape().clear();
}

TEST_CASE("anomaly mode blames the op that made a NaN gradient, not a later one that carried it", "[anomaly][debug]") {
  tape().clear();
  // sqrt(x) * w with w = 0 is finite forward, and mul hands sqrt a finite
  // gradient (w = 0); sqrt's backward then computes 0 / (2 sqrt(0)) = NaN.
  Tensor x(Array{1.0, 0.0}, true, "x");
  Tensor w(Array{0.0, 0.0}, true, "w");
  detect_anomaly guard;
  Tensor loss = sum(sqrt(x) * w);  // sqrt: entry 0, mul: entry 1, sum: entry 2
  try {
    loss.backward();
    FAIL("no AnomalyError was thrown");
  } catch (const AnomalyError& err) {
    INFO(err.what());
    CHECK(err.op == "sqrt");  // mul's gradient for sqrt's output is w = 0: finite
    CHECK(err.tape_index == 0);
    CHECK(err.bad_count == 1);
    CHECK(err.first_bad == 1);
  }
  tape().clear();
}

TEST_CASE("anomaly mode is silent when off or when all values are finite", "[anomaly][debug]") {
  tape().clear();
  CHECK_FALSE(is_anomaly_enabled());
  {
    Tensor x(Array{-1.0, 0.0}, true, "x");
    Tensor y = log(x);  // NaN, -inf: allowed when anomaly mode is off
    CHECK(std::isnan(y.value()(0)));
    Tensor z = sum(sqrt(Tensor(Array{0.0, 1.0}, true)));
    CHECK_NOTHROW(z.backward());
    tape().clear();
  }
  {
    detect_anomaly guard;
    CHECK(is_anomaly_enabled());
    Tensor x = testing::param({3, 4}, 7, "x");
    Tensor w = testing::param({4, 2}, 8, "w");
    Tensor loss = mean(tanh(matmul(x, w)) * 3.0);
    CHECK_NOTHROW(loss.backward());
    CHECK(x.has_grad());
    {
      detect_anomaly nested(false);  // the guard can also switch it off for a region
      CHECK_FALSE(is_anomaly_enabled());
      CHECK_NOTHROW(log(Tensor(Array{-1.0})));
    }
    CHECK(is_anomaly_enabled());
  }
  CHECK_FALSE(is_anomaly_enabled());
  set_detect_anomaly(true);
  CHECK(is_anomaly_enabled());
  set_detect_anomaly(false);
}

TEST_CASE("anomaly mode leaves gradients identical to a normal backward", "[anomaly][debug]") {
  auto run = [](bool anomaly) {
    tape().clear();
    detect_anomaly guard(anomaly);
    Tensor x = testing::param({2, 3}, 11, "x");
    Tensor loss = sum(sigmoid(x) * x);
    loss.backward();
    return x.grad();
  };
  const bool identical = run(true) == run(false);  // bitwise: anomaly mode only looks
  CHECK(identical);
}
