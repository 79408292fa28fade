// Adam and AdamW: hand-computed steps, PyTorch reference trajectories, errors.
#include "helpers.hpp"
#include "optim/optim_test.hpp"

using namespace tapegrad;
using tapegrad::testing::message_of;
using optim::Adam;
using optim::AdamOptions;
using optim::AdamW;

namespace {

template <class Opt>
testing::MakeOptimizer make(AdamOptions o) {
  return [o](std::vector<Tensor> ps) { return std::make_unique<Opt>(std::move(ps), o); };
}

AdamOptions options(double lr, std::pair<double, double> betas, double eps, std::optional<double> weight_decay,
                    bool amsgrad) {
  AdamOptions o;
  o.lr = lr;
  o.betas = betas;
  o.eps = eps;
  o.weight_decay = weight_decay;
  o.amsgrad = amsgrad;
  return o;
}

}  // namespace

TEST_CASE("Adam's defaults are PyTorch's", "[optim]") {
  Tensor p(Array{1.0}, true);
  Adam adam({p});
  CHECK(adam.lr() == 1e-3);
  CHECK(adam.options().betas == std::pair<double, double>{0.9, 0.999});
  CHECK(adam.options().eps == 1e-8);
  CHECK(*adam.options().weight_decay == 0.0);
  CHECK_FALSE(adam.options().amsgrad);
  AdamW adamw({p});
  CHECK(*adamw.options().weight_decay == 1e-2);
  CHECK(adamw.name() == "AdamW");
}

TEST_CASE("Adam with a constant gradient moves lr per step (bias correction)", "[optim]") {
  // g = 2 always: m_t = 2(1 − β1^t), v_t = 4(1 − β2^t), so the corrected m̂ = 2, √v̂ = 2 and
  // every step is lr · 2 / (2 + ε): p_t = 1 − t · 0.1 · 2 / (2 + 1e-8).
  Tensor p(Array{1.0}, true, "p");
  Adam adam({p}, {0.1});
  for (int t = 1; t <= 3; ++t) {
    adam.zero_grad();
    p.accumulate_grad(Array{2.0});
    adam.step();
    INFO("step " << t);
    CHECK(p.value()(0) == Approx(1.0 - t * 0.1 * 2.0 / (2.0 + 1e-8)).epsilon(1e-14));
  }
  // The raw (uncorrected) moments after 3 steps:
  CHECK(adam.state(0).step == 3);
  CHECK(adam.state(0).exp_avg(0) == Approx(2.0 * (1.0 - 0.9 * 0.9 * 0.9)).epsilon(1e-14));
  CHECK(adam.state(0).exp_avg_sq(0) == Approx(4.0 * (1.0 - 0.999 * 0.999 * 0.999)).epsilon(1e-12));
}

TEST_CASE("Adam's first step, by hand, with L2 weight decay", "[optim]") {
  // p = 2, g = 1, λ = 0.5: g' = 1 + 0.5·2 = 2; m = 0.1·2 = 0.2; v = 0.001·4 = 0.004;
  // step_size = 0.1 / (1 − 0.9) = 1; denom = √0.004 / √0.001 + 1e-8 = 2 + 1e-8;  p = 2 − 0.2 / (2 + 1e-8).
  Tensor p(Array{2.0}, true, "p");
  Adam adam({p}, options(0.1, {0.9, 0.999}, 1e-8, 0.5, false));
  p.accumulate_grad(Array{1.0});
  adam.step();
  CHECK(adam.state(0).exp_avg(0) == Approx(0.2).epsilon(1e-15));
  CHECK(adam.state(0).exp_avg_sq(0) == Approx(0.004).epsilon(1e-15));
  CHECK(p.value()(0) == Approx(2.0 - 0.2 / (2.0 + 1e-8)).epsilon(1e-15));
}

TEST_CASE("AdamW decays the weight before, and apart from, the Adam step", "[optim]") {
  // g = 2 always, lr 0.1, λ 0.1: p ← p (1 − 0.01) − 0.1·2/(2 + ε)
  Tensor p(Array{1.0}, true, "p");
  AdamW adamw({p}, options(0.1, {0.9, 0.999}, 1e-8, 0.1, false));
  double expected = 1.0;
  for (int t = 1; t <= 3; ++t) {
    adamw.zero_grad();
    p.accumulate_grad(Array{2.0});
    adamw.step();
    expected = expected * (1.0 - 0.1 * 0.1) - 0.1 * 2.0 / (2.0 + 1e-8);
    INFO("step " << t);
    CHECK(p.value()(0) == Approx(expected).epsilon(1e-14));
  }
  CHECK(expected == Approx(0.7811 * 0.99 - 0.1).epsilon(1e-7));  // 0.89, 0.7811, 0.673289
}

TEST_CASE("AMSGrad normalizes by the largest second moment so far", "[optim]") {
  // g = 10 then 0: without amsgrad v shrinks by β2 at step 2; with it v̂ keeps the step-1 value.
  Tensor p(Array{0.0}, true, "p");
  Adam adam({p}, options(0.1, {0.9, 0.999}, 1e-8, 0.0, true));
  p.accumulate_grad(Array{10.0});
  adam.step();
  adam.zero_grad();
  p.accumulate_grad(Array{0.0});
  adam.step();
  CHECK(adam.state(0).max_exp_avg_sq(0) == Approx(0.001 * 100.0).epsilon(1e-14));
  CHECK(adam.state(0).exp_avg_sq(0) == Approx(0.999 * 0.001 * 100.0).epsilon(1e-14));
}

TEST_CASE("Adam and AdamW match torch.optim step for step", "[optim]") {
  namespace ref = optim_reference;
  using testing::require_matches;
  using testing::run_quadratic;
  SECTION("Adam defaults") { require_matches(run_quadratic(make<Adam>({})).p, ref::adam_default, 20); }
  SECTION("Adam lr, betas, eps, L2 weight decay") {
    require_matches(run_quadratic(make<Adam>(options(0.05, {0.8, 0.99}, 1e-6, 0.1, false))).p, ref::adam_custom, 20);
  }
  SECTION("Adam amsgrad") {
    require_matches(run_quadratic(make<Adam>(options(0.05, {0.9, 0.999}, 1e-8, {}, true))).p, ref::adam_amsgrad, 20);
  }
  SECTION("AdamW defaults") { require_matches(run_quadratic(make<AdamW>({})).p, ref::adamw_default, 20); }
  SECTION("AdamW lr, betas, eps, weight decay, amsgrad") {
    require_matches(run_quadratic(make<AdamW>(options(0.05, {0.8, 0.99}, 1e-6, 0.1, true))).p, ref::adamw_custom,
                    20);
  }
  SECTION("a step without a gradient does not count towards that parameter's bias correction") {
    const auto t = run_quadratic(make<Adam>({0.05}), true);
    require_matches(t.p, ref::adam_skip, 20);
    require_matches(t.q, ref::adam_skip_q, 20);
  }
}

TEST_CASE("Adam keeps no state for a parameter that never had a gradient", "[optim]") {
  Tensor a(Array{1.0}, true, "a"), b(Array{1.0}, true, "b");
  Adam adam({a, b});
  a.accumulate_grad(Array{1.0});
  adam.step();
  adam.step();  // a keeps its gradient: two updates
  CHECK(adam.state(0).step == 2);
  CHECK(adam.state(1).step == 0);
  CHECK(b.value()(0) == 1.0);
}

TEST_CASE("Adam trains through backward(): least squares converges", "[optim]") {
  const Array X = testing::randn({32, 3}, 12);
  const Array w_star = xt::reshape_view(Array{1.0, -2.0, 0.5}, {3, 1});
  const Tensor y(gemm(X, w_star));
  Tensor w = zeros({3, 1}, true);
  Adam adam({w}, {0.05});
  for (int i = 0; i < 1000; ++i) {
    adam.zero_grad();
    mse_loss(matmul(Tensor(X), w), y).backward();
    adam.step();
  }
  CHECK(testing::allclose(w.value(), w_star, 1e-4, 1e-4));
}

TEST_CASE("Adam and AdamW reject bad hyperparameters, naming optimizer and value", "[optim]") {
  Tensor p(Array{1.0}, true, "p");
  CHECK_THAT(message_of([&] { Adam({p}, {-1e-3}); }), Catch::Contains("Adam: invalid learning rate lr=-0.001"));
  CHECK_THAT(message_of([&] { Adam({p}, options(1e-3, {1.0, 0.999}, 1e-8, {}, false)); }),
             Catch::Contains("Adam: invalid betas[0]=1 (expected 0 <= beta1 < 1)"));
  CHECK_THAT(message_of([&] { Adam({p}, options(1e-3, {0.9, -0.1}, 1e-8, {}, false)); }),
             Catch::Contains("Adam: invalid betas[1]=-0.1"));
  CHECK_THAT(message_of([&] { AdamW({p}, options(1e-3, {0.9, 0.999}, -1e-8, {}, false)); }),
             Catch::Contains("AdamW: invalid eps=-1e-08"));
  CHECK_THAT(message_of([&] { AdamW({p}, options(1e-3, {0.9, 0.999}, 1e-8, -0.01, false)); }),
             Catch::Contains("AdamW: invalid weight_decay=-0.01"));
  CHECK_THAT(message_of([&] { AdamW({}, {}); }), Catch::Contains("AdamW: got an empty parameter list"));
}
