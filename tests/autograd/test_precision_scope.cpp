// precision_scope: op outputs, stored gradients, optimizer steps rounded; gradcheck refuses;
// MixedPrecision's master copy and loss scaling.
#include <cmath>
#include <thread>

#include "helpers.hpp"
#include "tapegrad/optim/mixed_precision.hpp"

using namespace tapegrad;
using tapegrad::testing::message_of;

namespace {

const double two_to(int e) { return std::ldexp(1.0, e); }

// Every element is a number of the format.
bool all_in_format(const Array& a, Precision p) {
  for (double v : a)
    if (!std::isnan(v) && round_to(v, p) != v) return false;
  return true;
}

}  // namespace

TEST_CASE("precision_scope: every op's output is rounded, and only inside the scope", "[precision]") {
  const Tensor a(Array{1.0, 300.0, 1e-7, 1e4});
  const Tensor b(Array{two_to(-12), 300.0, 1.0, 1.0});
  {
    precision_scope fp16(Precision::fp16);
    CHECK(current_precision() == Precision::fp16);
    CHECK(low_precision_active());
    const Array sum = add(a, b).value();
    CHECK(sum(0) == 1.0);            // 1 + 2^-12: below half an ulp of 1
    CHECK(sum(3) == 10000.0);        // 1e4 + 1: fp16's spacing at 1e4 is 8
    const Array product = mul(a, b).value();
    CHECK(product(1) == INFINITY);   // 90000 > 65504
    CHECK(product(2) == 2 * two_to(-24));  // a subnormal, kept (1e-7 is 1.68 units of 2^-24)
    {
      precision_scope off(Precision::fp64);  // scopes nest
      CHECK(add(a, b).value()(0) == 1.0 + two_to(-12));
    }
    CHECK(add(a, b).value()(0) == 1.0);
  }
  CHECK(current_precision() == Precision::fp64);
  CHECK(add(a, b).value()(0) == 1.0 + two_to(-12));
  CHECK(mul(a, b).value()(1) == 90000.0);
}

TEST_CASE("precision_scope is per thread, like no_grad", "[precision]") {
  precision_scope bf16(Precision::bf16);
  Precision seen = Precision::bf16;
  std::thread([&] { seen = current_precision(); }).join();
  CHECK(seen == Precision::fp64);
}

TEST_CASE("precision_scope: the forward pass is each op's float64 result rounded once", "[precision]") {
  const Tensor x(testing::randn({4, 16}, 1, 3.0) + 100.0);
  Array expected_ln;
  {
    precision_scope exact(Precision::fp64);
    expected_ln = layer_norm(x, {16}).value();
  }
  round_in_place(expected_ln, Precision::bf16);
  precision_scope bf16(Precision::bf16);
  CHECK(layer_norm(x, {16}).value() == expected_ln);  // a fused op: statistics in float64
}

TEST_CASE("precision_scope: stored gradients are rounded: each contribution, then each sum", "[precision]") {
  // x gets two contributions, 1 and c = 2^-11 + 2^-30. In fp16 c rounds to 2^-11, then 1 + 2^-11
  // is a tie that goes to 1. Rounding only the sum would give 1 + 2^-10: the contributions are
  // rounded first, as a backward that stores fp16 tensors and adds them in fp16 does.
  const double c = two_to(-11) + two_to(-30);
  Tensor x(Array{2.0}, true, "x");
  {
    precision_scope fp16(Precision::fp16);
    Tensor loss = add(sum(x), sum(mul(x, c)));
    loss.backward();
  }
  CHECK(x.grad()(0) == 1.0);
  x.zero_grad();
  add(sum(x), sum(mul(x, c))).backward();
  CHECK(x.grad()(0) == 1.0 + c);
}

TEST_CASE("precision_scope: a whole backward pass leaves every gradient in the format", "[precision]") {
  Tensor w = testing::param({8, 8}, 2, "w");
  Tensor bias = testing::param({8}, 3, "bias");
  const Tensor x(testing::randn({5, 8}, 4));
  round_(w, Precision::fp16);
  round_(bias, Precision::fp16);
  precision_scope fp16(Precision::fp16);
  Tensor h = relu(add(matmul(x, w), bias));  // bias broadcast: its gradient is a sum over rows
  h.retain_grad();
  Tensor loss = mean(mul(h, h));
  loss.backward();
  CHECK(all_in_format(w.grad(), Precision::fp16));
  CHECK(all_in_format(bias.grad(), Precision::fp16));
  CHECK(all_in_format(h.grad(), Precision::fp16));
  CHECK(all_in_format(h.value(), Precision::fp16));
}

TEST_CASE("precision_scope: the fused FFN runs composed, so its hidden layer is rounded too", "[precision]") {
  Tensor x(testing::randn({3, 4}, 5));
  Tensor w1 = testing::param({6, 4}, 6), b1 = testing::param({6}, 7), w2 = testing::param({4, 6}, 8),
         b2 = testing::param({4}, 9);
  precision_scope bf16(Precision::bf16);
  const Tensor fused = feed_forward(x, w1, b1, w2, b2, Activation::gelu);
  const Tensor composed = composed::feed_forward(x, w1, b1, w2, b2, Activation::gelu);
  CHECK(fused.value() == composed.value());
  CHECK(tape().size() == 6);  // linear, gelu, linear, twice
  tape().clear();
}

TEST_CASE("precision_scope: optimizers store parameters and state in the format", "[precision][optim]") {
  Tensor p = testing::param({3, 5}, 10, "p");
  round_(p, Precision::bf16);
  optim::Adam adam({p}, optim::AdamOptions{1e-2});
  Tensor q = testing::param({4}, 11, "q");
  round_(q, Precision::bf16);
  optim::SGD sgd({q}, optim::SGDOptions{0.1, 0.9});
  precision_scope bf16(Precision::bf16);
  for (int step = 0; step < 3; ++step) {
    adam.zero_grad();
    sgd.zero_grad();
    add(mean(mul(p, p)), sum(mul(q, q))).backward();
    adam.step();
    sgd.step();
    INFO("step " << step);
    CHECK(all_in_format(p.value(), Precision::bf16));
    CHECK(all_in_format(adam.state(0).exp_avg, Precision::bf16));
    CHECK(all_in_format(adam.state(0).exp_avg_sq, Precision::bf16));
    CHECK(all_in_format(q.value(), Precision::bf16));
    CHECK(all_in_format(*sgd.state(0).momentum_buffer, Precision::bf16));
  }
}

TEST_CASE("precision_scope: fp16 Adam without a master copy: updates below half an ulp are lost", "[precision][optim]") {
  // w = 1, lr = 1e-4: each Adam step moves w by ~1e-4 < 2^-11 (half of fp16's ulp at 1), so
  // w + Δw rounds back to 1 every time. This is why mixed precision keeps a float32 master.
  Tensor w(Array{1.0}, true, "w");
  optim::Adam adam({w}, optim::AdamOptions{1e-4});
  precision_scope fp16(Precision::fp16);
  for (int step = 0; step < 20; ++step) {
    adam.zero_grad();
    sum(w).backward();
    adam.step();
  }
  CHECK(w.value()(0) == 1.0);
}

TEST_CASE("gradcheck refuses to run inside a precision_scope, and says why", "[precision][gradcheck]") {
  Tensor x = testing::param({3}, 12, "x");
  auto fn = [](const std::vector<Tensor>& in) { return mul(in[0], in[0]); };
  {
    precision_scope fp32(Precision::fp32);
    const std::string message = message_of([&] { gradcheck(fn, {x}); });
    CHECK_THAT(message, Catch::Contains("gradcheck: refusing to run inside a precision_scope(fp32)") &&
                            Catch::Contains("finite differences need float64") && Catch::Contains("eps = 1e-06") &&
                            Catch::Contains("Run gradcheck outside the scope"));
    CHECK(tape().empty());
  }
  REQUIRE_GRADCHECK(fn, std::vector<Tensor>{x});
}

TEST_CASE("MixedPrecision: float32 masters keep the updates that fp16 weights lose", "[precision][optim]") {
  Tensor w(Array{1.0}, true, "w");
  optim::MixedPrecision amp({w}, Precision::fp16, optim::LossScaleOptions{1.0, 2.0, 0.5, 2000, false});
  optim::Adam adam(amp.master_params(), optim::AdamOptions{1e-4});
  REQUIRE(amp.master_params().size() == 1);
  CHECK(amp.master_params()[0].name() == "w");
  for (int step = 0; step < 20; ++step) {
    amp.zero_grad();
    {
      precision_scope fp16(Precision::fp16);
      amp.scale_loss(sum(w)).backward();
    }
    REQUIRE(amp.step(adam));
  }
  const double master = amp.master_params()[0].value()(0);
  CHECK(master == Approx(1.0 - 20 * 1e-4).epsilon(1e-4));  // Adam's first steps move by lr each
  CHECK(round_to(master, Precision::fp32) == master);
  CHECK(w.value()(0) == round_to(master, Precision::fp16));
  CHECK(w.value()(0) < 1.0);
}

TEST_CASE("MixedPrecision: the loss scale rescues gradients below fp16's smallest subnormal", "[precision][optim]") {
  // dL/dw = 1e-8 < 2^-24 ≈ 6e-8: in fp16 it is stored as 0, unless the loss is scaled first.
  auto gradient_reaching_master = [](double init_scale) {
    Tensor w(Array{1.0}, true, "w");
    optim::MixedPrecision amp({w}, Precision::fp16, optim::LossScaleOptions{init_scale, 2.0, 0.5, 2000, false});
    optim::SGD sgd(amp.master_params(), optim::SGDOptions{1.0});
    {
      precision_scope fp16(Precision::fp16);
      amp.scale_loss(mul(sum(w), 1e-8)).backward();
    }
    REQUIRE(amp.step(sgd));
    return amp.master_params()[0].grad()(0);  // the gradient the fp32 optimizer saw
  };
  CHECK(gradient_reaching_master(1.0) == 0.0);
  CHECK(gradient_reaching_master(65536.0) == Approx(1e-8).epsilon(1e-3));
}

TEST_CASE("MixedPrecision: an overflowing step is skipped and the scale backs off — clean steps grow it",
          "[precision][optim]") {
  Tensor w(Array{2.0, -3.0}, true, "w");
  optim::MixedPrecision amp({w}, Precision::fp16, optim::LossScaleOptions{two_to(20), 2.0, 0.5, 3, true});
  optim::SGD sgd(amp.master_params(), optim::SGDOptions{0.01});
  auto one_step = [&] {
    amp.zero_grad();
    {
      precision_scope fp16(Precision::fp16);
      amp.scale_loss(sum(mul(w, w))).backward();  // dL/dw = 2w: times 2^20 it overflows fp16
    }
    return amp.step(sgd);
  };
  CHECK_FALSE(one_step());
  CHECK(amp.scale() == two_to(19));
  CHECK(amp.skipped_steps() == 1);
  CHECK(w.value()(0) == 2.0);  // nothing changed
  CHECK(amp.master_params()[0].value()(0) == 2.0);
  int skipped = 1;
  while (!one_step()) REQUIRE(++skipped < 10);  // 6·scale fits fp16 from 2^13: 7 skips; a scale that never backs off would loop forever
  CHECK(skipped == 7);
  CHECK(amp.skipped_steps() == 7);
  const double working_scale = amp.scale();
  CHECK(working_scale * 6.0 < 65504.0);
  CHECK(one_step());
  CHECK(one_step());  // the third clean step in a row: the scale grows
  CHECK(amp.scale() == 2 * working_scale);
  CHECK(all_in_format(w.value(), Precision::fp16));
  CHECK(all_in_format(amp.master_params()[0].value(), Precision::fp32));
}

TEST_CASE("MixedPrecision: bad options are refused by name", "[precision][optim]") {
  Tensor w(Array{1.0}, true);
  CHECK_THAT(message_of([&] { optim::MixedPrecision({w}, Precision::fp16, optim::LossScaleOptions{0.0}); }),
             Catch::Contains("MixedPrecision: invalid init_scale=0"));
  CHECK_THAT(message_of([&] { optim::MixedPrecision({}, Precision::fp16); }), Catch::Contains("empty parameter list"));
}
