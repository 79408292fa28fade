// SGD: hand-computed steps, PyTorch reference trajectories, errors.
#include "helpers.hpp"
#include "optim/optim_test.hpp"

using namespace tapegrad;
using tapegrad::testing::message_of;
using optim::SGD;
using optim::SGDOptions;

namespace {

// Three steps on a one-element parameter starting at 1 with gradients 1, 2, −1;
// returns the value after each step.
std::vector<double> three_steps(const SGDOptions& options) {
  Tensor p(Array{1.0}, true, "p");
  SGD sgd({p}, options);
  std::vector<double> values;
  for (double g : {1.0, 2.0, -1.0}) {
    sgd.zero_grad();
    p.accumulate_grad(Array{g});
    sgd.step();
    values.push_back(p.value()(0));
  }
  return values;
}

void check_values(const std::vector<double>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("after step " << i + 1);
    CHECK(got[i] == Approx(expected[i]).epsilon(1e-14).margin(1e-15));
  }
}

}  // namespace

TEST_CASE("SGD without momentum: p -= lr * g", "[optim]") {
  // 1 − 0.1·1 = 0.9;  0.9 − 0.1·2 = 0.7;  0.7 + 0.1 = 0.8
  check_values(three_steps({0.1}), {0.9, 0.7, 0.8});
}

TEST_CASE("SGD momentum: the first buffer is the gradient itself", "[optim]") {
  // b1 = 1, p = 0.9;  b2 = 0.9·1 + 2 = 2.9, p = 0.61;  b3 = 0.9·2.9 − 1 = 1.61, p = 0.449
  check_values(three_steps({0.1, 0.9}), {0.9, 0.61, 0.449});
}

TEST_CASE("SGD dampening applies from the second step on", "[optim]") {
  // b1 = 1 (undamped), p = 0.9;  b2 = 0.9 + 0.5·2 = 1.9, p = 0.71;  b3 = 1.71 − 0.5 = 1.21, p = 0.589
  check_values(three_steps({0.1, 0.9, 0.5}), {0.9, 0.71, 0.589});
}

TEST_CASE("SGD Nesterov steps along g + momentum * buffer", "[optim]") {
  SGDOptions o{0.1, 0.9};
  o.nesterov = true;
  // b1 = 1, d = 1 + 0.9 = 1.9, p = 0.81;  b2 = 2.9, d = 2 + 2.61 = 4.61, p = 0.349;
  // b3 = 1.61, d = −1 + 1.449 = 0.449, p = 0.3041
  check_values(three_steps(o), {0.81, 0.349, 0.3041});
}

TEST_CASE("SGD weight decay adds lambda * p to the gradient", "[optim]") {
  SGDOptions o{0.1};
  o.weight_decay = 0.1;
  // d = 1 + 0.1·1 = 1.1, p = 0.89;  d = 2 + 0.089 = 2.089, p = 0.6811;  d = −1 + 0.06811, p = 0.774289
  check_values(three_steps(o), {0.89, 0.6811, 0.774289});
}

TEST_CASE("SGD matches torch.optim.SGD step for step", "[optim]") {
  namespace ref = optim_reference;
  using testing::run_quadratic;
  auto make = [](SGDOptions o) {
    return [o](std::vector<Tensor> ps) { return std::make_unique<SGD>(std::move(ps), o); };
  };
  SECTION("plain") { testing::require_matches(run_quadratic(make({0.1})).p, ref::sgd_plain, 20); }
  SECTION("momentum") { testing::require_matches(run_quadratic(make({0.1, 0.9})).p, ref::sgd_momentum, 20); }
  SECTION("dampening") { testing::require_matches(run_quadratic(make({0.1, 0.9, 0.5})).p, ref::sgd_dampening, 20); }
  SECTION("nesterov") {
    testing::require_matches(run_quadratic(make({0.1, 0.9, 0.0, 0.0, true})).p, ref::sgd_nesterov, 20);
  }
  SECTION("weight decay") {
    testing::require_matches(run_quadratic(make({0.1, 0.9, 0.0, 0.1})).p, ref::sgd_weight_decay, 20);
  }
  SECTION("a parameter without a gradient is skipped, its buffer untouched") {
    const auto t = run_quadratic(make({0.1, 0.9}), true);
    testing::require_matches(t.p, ref::sgd_skip, 20);
    testing::require_matches(t.q, ref::sgd_skip_q, 20);
  }
}

TEST_CASE("SGD keeps its momentum buffer per parameter and skips gradless ones", "[optim]") {
  Tensor a(Array{1.0, 2.0}, true, "a"), b(Array{3.0}, true, "b");
  SGD sgd({a, b}, {0.5, 0.9});
  a.accumulate_grad(Array{1.0, -1.0});
  sgd.step();
  CHECK((a.value() == Array{0.5, 2.5}));
  CHECK((b.value() == Array{3.0}));  // no gradient: unchanged
  REQUIRE(sgd.state(0).momentum_buffer.has_value());
  CHECK((*sgd.state(0).momentum_buffer == Array{1.0, -1.0}));
  CHECK_FALSE(sgd.state(1).momentum_buffer.has_value());
  CHECK(sgd.steps_taken() == 1);
  sgd.zero_grad();
  CHECK_FALSE(a.has_grad());
}

TEST_CASE("SGD trains through backward(): least squares converges", "[optim]") {
  // y = X w* with w* = (1, −2, 0.5); fit w from 0 with momentum.
  const Array X = testing::randn({32, 3}, 11);
  const Array w_star = xt::reshape_view(Array{1.0, -2.0, 0.5}, {3, 1});
  const Tensor y(gemm(X, w_star));
  Tensor w = zeros({3, 1}, true);
  SGD sgd({w}, {0.05, 0.9});
  double first = 0, last = 0;
  for (int i = 0; i < 200; ++i) {
    sgd.zero_grad();
    Tensor loss = mse_loss(matmul(Tensor(X), w), y);
    if (i == 0) first = loss.item();
    last = loss.item();
    loss.backward();
    sgd.step();
  }
  CHECK(last < 1e-8 * first);
  CHECK(testing::allclose(w.value(), w_star, 1e-5, 1e-5));
}

TEST_CASE("SGD rejects bad hyperparameters and parameter lists clearly", "[optim]") {
  Tensor p(Array{1.0}, true, "p");
  CHECK_THAT(message_of([&] { SGD({p}, SGDOptions{}); }), Catch::Contains("SGD") && Catch::Contains("lr was not set"));
  CHECK_THAT(message_of([&] { SGD({p}, {-0.1}); }), Catch::Contains("SGD: invalid learning rate lr=-0.1"));
  CHECK_THAT(message_of([&] { SGD({p}, {0.1, -0.5}); }), Catch::Contains("SGD: invalid momentum=-0.5"));
  CHECK_THAT(message_of([&] { SGD({p}, {0.1, 0.0, 0.0, -1e-4}); }),
             Catch::Contains("SGD: invalid weight_decay=-0.0001"));
  CHECK_THAT(message_of([&] { SGD({p}, {0.1, 0.0, 0.0, 0.0, true}); }),
             Catch::Contains("nesterov=true requires momentum > 0") && Catch::Contains("momentum=0"));
  CHECK_THAT(message_of([&] { SGD({p}, {0.1, 0.9, 0.1, 0.0, true}); }), Catch::Contains("dampening=0.1"));
  CHECK_THAT(message_of([&] { SGD({}, {0.1}); }), Catch::Contains("SGD: got an empty parameter list"));
  CHECK_THAT(message_of([&] { SGD({p, p}, {0.1}); }),
             Catch::Contains("parameter 1 'p' (1) is the same tensor as parameter 0"));
  CHECK_THAT(message_of([&] { SGD({Tensor()}, {0.1}); }), Catch::Contains("parameter 0 is an undefined Tensor()"));
  Tensor h = p * 2.0;
  CHECK_THAT(message_of([&] { SGD({h}, {0.1}); }), Catch::Contains("SGD: parameter 0") && Catch::Contains("is not a leaf"));
  SGD sgd({p}, {0.1});
  CHECK_THAT(message_of([&] { sgd.set_lr(-1.0); }), Catch::Contains("SGD: invalid learning rate lr=-1"));
  CHECK_THAT(message_of([&] { sgd.set_lr(std::nan("")); }), Catch::Contains("lr=nan"));
  CHECK(sgd.lr() == 0.1);  // unchanged by the failed set_lr
  tape().clear();
}

TEST_CASE("SGD refuses a gradient or buffer whose shape no longer fits", "[optim]") {
  Tensor p(Array{1.0, 2.0}, true, "p");
  SGD sgd({p}, {0.1, 0.9});
  p.accumulate_grad(Array{1.0, 1.0});
  sgd.step();
  p.mutable_value() = Array{{1.0, 2.0}, {3.0, 4.0}};  // replaced behind the optimizer's back
  CHECK_THROWS_AS(sgd.step(), ShapeError);             // grad (2) vs value (2, 2)
  sgd.zero_grad();
  p.accumulate_grad(Array{{1.0, 1.0}, {1.0, 1.0}});
  CHECK_THROWS_WITH(sgd.step(), Catch::Contains("momentum buffer") && Catch::Contains("(2)"));
}
