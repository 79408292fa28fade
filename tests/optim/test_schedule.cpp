// Learning-rate schedules at chosen steps, and applied to an optimizer.
#include <cmath>

#include "helpers.hpp"
#include "optim/optim_test.hpp"

using namespace tapegrad;
using namespace tapegrad::optim;
using testing::message_of;

TEST_CASE("ConstantSchedule is constant", "[optim]") {
  ConstantSchedule s(0.1);
  CHECK(s.lr_at(0) == 0.1);
  CHECK(s.lr_at(123456) == 0.1);
  CHECK_THROWS_WITH(s.lr_at(-1), Catch::Contains("invalid step=-1"));
}

TEST_CASE("LinearWarmup: lr * min(1, (step + 1) / W), W = 0 means none", "[optim]") {
  LinearWarmup s(1.0, 4);
  const std::vector<double> expected{0.25, 0.5, 0.75, 1.0, 1.0, 1.0};
  for (long step = 0; step < 6; ++step) CHECK(s.lr_at(step) == expected[step]);
  CHECK(LinearWarmup(0.3, 0).lr_at(0) == 0.3);
  CHECK(LinearWarmup(0.3, 1).lr_at(0) == 0.3);
  CHECK(LinearWarmup(2.0, 3).lr_at(0) == Approx(2.0 / 3.0).epsilon(1e-15));
  CHECK_THAT(message_of([] { LinearWarmup(1.0, -1); }), Catch::Contains("LinearWarmup: invalid warmup_steps=-1"));
  CHECK_THAT(message_of([] { LinearWarmup(-1.0, 2); }), Catch::Contains("LinearWarmup: invalid lr=-1"));
}

TEST_CASE("WarmupCosine: warmup, then half a cosine from lr to min_lr at total_steps", "[optim]") {
  WarmupCosine s(1.0, 2, 10, 0.1);  // warmup over steps 0-1, decay over steps 2..10
  CHECK(s.lr_at(0) == 0.5);
  CHECK(s.lr_at(1) == 1.0);
  CHECK(s.lr_at(2) == 1.0);                                       // progress 0
  CHECK(s.lr_at(4) == Approx(0.1 + 0.45 * (1.0 + std::cos(M_PI / 4))).epsilon(1e-15));  // progress 1/4
  CHECK(s.lr_at(6) == Approx(0.55).epsilon(1e-15));               // progress 1/2: halfway
  CHECK(s.lr_at(10) == Approx(0.1).epsilon(1e-15));               // progress 1
  CHECK(s.lr_at(1000) == Approx(0.1).epsilon(1e-15));             // stays at min_lr
  for (long step = 2; step < 12; ++step) CHECK(s.lr_at(step + 1) <= s.lr_at(step));

  WarmupCosine no_warmup(0.5, 0, 4);  // min_lr 0 by default
  CHECK(no_warmup.lr_at(0) == 0.5);
  CHECK(no_warmup.lr_at(2) == Approx(0.25).epsilon(1e-15));
  CHECK(no_warmup.lr_at(4) == Approx(0.0).margin(1e-16));

  CHECK_THAT(message_of([] { WarmupCosine(1.0, 5, 5); }),
             Catch::Contains("WarmupCosine: invalid total_steps=5 (expected total_steps > warmup_steps = 5)"));
  CHECK_THAT(message_of([] { WarmupCosine(1.0, 0, 5, 2.0); }), Catch::Contains("WarmupCosine: invalid min_lr=2"));
  CHECK_THAT(message_of([] { WarmupCosine(1.0, -2, 5); }), Catch::Contains("invalid warmup_steps=-2"));
}

TEST_CASE("a schedule sets the optimizer's lr each step", "[optim]") {
  Tensor p(Array{0.0}, true, "p");
  SGD sgd({p}, {123.0});  // the schedule overrides this lr
  LinearWarmup warmup(0.1, 2);
  // Gradient 1 each step: p moves by −lr_at(step).
  for (long step = 0; step < 3; ++step) {
    CHECK(warmup.apply(sgd, step) == warmup.lr_at(step));
    CHECK(sgd.lr() == warmup.lr_at(step));
    sgd.zero_grad();
    p.accumulate_grad(Array{1.0});
    sgd.step();
  }
  CHECK(p.value()(0) == Approx(-(0.05 + 0.1 + 0.1)).epsilon(1e-15));
}
