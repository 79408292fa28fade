// Init schemes: fans, gains, bounds, statistics over large tensors, draw order.
#include <cmath>

#include <xtensor/xsort.hpp>

#include "helpers.hpp"

using namespace tapegrad;
using testing::message_of;

namespace {

double mean_of(const Array& a) { return xt::mean(a)(); }
double std_of(const Array& a) { return std::sqrt(xt::mean(xt::square(a - mean_of(a)))()); }
double max_abs(const Array& a) { return xt::amax(xt::abs(a))(); }

Tensor empty_weight(const Shape& shape) { return Tensor(Array(xt::zeros<double>(shape)), true, "w"); }

}  // namespace

TEST_CASE("fans follow torch.nn.init._calculate_fan_in_and_fan_out", "[optim]") {
  const init::Fans linear = init::calculate_fan_in_and_fan_out({3, 5});  // Linear(5 → 3) weight
  CHECK(linear.fan_in == 5);
  CHECK(linear.fan_out == 3);
  const init::Fans conv = init::calculate_fan_in_and_fan_out({4, 3, 2, 5});  // Conv2d(3 → 4, 2×5 kernel)
  CHECK(conv.fan_in == 3 * 10);
  CHECK(conv.fan_out == 4 * 10);
  CHECK_THROWS_AS(init::calculate_fan_in_and_fan_out({7}), ShapeError);
  CHECK_THROWS_WITH(init::calculate_fan_in_and_fan_out({7}), Catch::Contains("(7)") && Catch::Contains("fewer than 2"));
  Tensor bias(Array{1.0, 2.0}, true, "b");
  CHECK_THAT(message_of([&] { init::xavier_uniform_(bias); }),
             Catch::Contains("xavier_uniform_ of 'b' (2)") && Catch::Contains("fewer than 2 dimensions"));
}

TEST_CASE("calculate_gain matches torch.nn.init.calculate_gain", "[optim]") {
  CHECK(init::calculate_gain("linear") == 1.0);
  CHECK(init::calculate_gain("conv2d") == 1.0);
  CHECK(init::calculate_gain("sigmoid") == 1.0);
  CHECK(init::calculate_gain("tanh") == Approx(5.0 / 3.0).epsilon(1e-15));
  CHECK(init::calculate_gain("relu") == Approx(1.4142135623730951).epsilon(1e-15));
  CHECK(init::calculate_gain("selu") == 0.75);
  CHECK(init::calculate_gain("leaky_relu") == Approx(1.4141428569978354).epsilon(1e-15));  // slope 0.01
  CHECK(init::calculate_gain("leaky_relu", std::sqrt(5.0)) == Approx(1.0 / std::sqrt(3.0)).epsilon(1e-15));
  CHECK_THROWS_WITH(init::calculate_gain("swish"), Catch::Contains("unsupported nonlinearity \"swish\""));
}

TEST_CASE("linear_default_ is nn.Linear's init: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias", "[optim]") {
  Generator gen(10);
  Tensor w = empty_weight({64, 400}), b(Array(xt::zeros<double>(Shape{64})), true, "b");
  init::linear_default_(w, b, gen);
  const double bound = 1.0 / std::sqrt(400.0);  // 0.05
  CHECK(max_abs(w.value()) <= bound);
  CHECK(max_abs(w.value()) > 0.999 * bound);  // 25600 draws reach the edge
  CHECK(mean_of(w.value()) == Approx(0.0).margin(4 * bound / std::sqrt(3.0 * 25600)));
  CHECK(std_of(w.value()) == Approx(bound / std::sqrt(3.0)).epsilon(0.02));
  CHECK(max_abs(b.value()) <= bound);
  CHECK(std_of(b.value()) > 0.0);

  // Draw order as in PyTorch: all of the weight (row-major), then the bias.
  Generator replay(10);
  const double wb = std::sqrt(3.0) * (std::sqrt(2.0 / (1.0 + 5.0)) / std::sqrt(400.0));  // kaiming_uniform_'s bound
  for (double x : w.value()) REQUIRE(x == replay.uniform(-wb, wb));
  for (double x : b.value()) REQUIRE(x == replay.uniform(-bound, bound));

  // No bias: just the weight.
  Tensor w2 = empty_weight({64, 400});
  Generator again(10);
  init::linear_default_(w2, Tensor(), again);
  CHECK(testing::allclose(w2.value(), w.value(), 0.0, 0.0));

  // A bias of the wrong shape is refused before anything is drawn.
  Tensor w3 = empty_weight({3, 4}), b3(Array(xt::zeros<double>(Shape{4})), true, "b");
  CHECK_THROWS_WITH(init::linear_default_(w3, b3, gen), Catch::Contains("bias 'b' (4) does not fit weight 'w' (3, 4)"));
  CHECK(max_abs(w3.value()) == 0.0);
}

TEST_CASE("kaiming_uniform_ and kaiming_normal_: Var(w) = gain^2 / fan", "[optim]") {
  Generator gen(11);
  SECTION("uniform, relu, fan_in") {
    Tensor w = init::kaiming_uniform_(empty_weight({256, 512}), 0.0, "fan_in", "relu", gen);
    const double std = std::sqrt(2.0) / std::sqrt(512.0);
    CHECK(max_abs(w.value()) <= std::sqrt(3.0) * std);
    CHECK(max_abs(w.value()) > 0.999 * std::sqrt(3.0) * std);
    CHECK(std_of(w.value()) == Approx(std).epsilon(0.02));
    CHECK(mean_of(w.value()) == Approx(0.0).margin(4 * std / std::sqrt(256.0 * 512.0)));
  }
  SECTION("normal, fan_out, leaky_relu with slope a") {
    Tensor w = init::kaiming_normal_(empty_weight({300, 200}), 0.2, "fan_out", "leaky_relu", gen);
    const double std = std::sqrt(2.0 / (1.0 + 0.04)) / std::sqrt(300.0);
    CHECK(std_of(w.value()) == Approx(std).epsilon(0.02));
    CHECK(mean_of(w.value()) == Approx(0.0).margin(4 * std / std::sqrt(60000.0)));
  }
  SECTION("normal, conv weight: fan_in = in · kernel size") {
    Tensor w = init::kaiming_normal_(empty_weight({64, 32, 3, 3}), 0.0, "fan_in", "relu", gen);
    CHECK(std_of(w.value()) == Approx(std::sqrt(2.0 / (32.0 * 9.0))).epsilon(0.02));
  }
  SECTION("bad mode or nonlinearity") {
    CHECK_THROWS_WITH(init::kaiming_uniform_(empty_weight({2, 2}), 0.0, "fan_avg"),
                      Catch::Contains("kaiming_uniform_: mode \"fan_avg\" is not supported"));
    CHECK_THROWS_WITH(init::kaiming_normal_(empty_weight({2, 2}), 0.0, "fan_in", "gelu"),
                      Catch::Contains("unsupported nonlinearity \"gelu\""));
  }
}

TEST_CASE("xavier_uniform_ and xavier_normal_: Var(w) = gain^2 * 2 / (fan_in + fan_out)", "[optim]") {
  Generator gen(12);
  Tensor u = init::xavier_uniform_(empty_weight({200, 300}), 2.0, gen);
  const double std = 2.0 * std::sqrt(2.0 / 500.0);
  CHECK(max_abs(u.value()) <= std::sqrt(3.0) * std);
  CHECK(max_abs(u.value()) > 0.999 * std::sqrt(3.0) * std);
  CHECK(std_of(u.value()) == Approx(std).epsilon(0.02));
  Tensor n = init::xavier_normal_(empty_weight({200, 300}), 1.0, gen);
  CHECK(std_of(n.value()) == Approx(std::sqrt(2.0 / 500.0)).epsilon(0.02));
  CHECK(mean_of(n.value()) == Approx(0.0).margin(4 * std::sqrt(2.0 / 500.0) / std::sqrt(60000.0)));
}

TEST_CASE("init is deterministic, in place, and fine on empty tensors", "[optim]") {
  Tensor a = empty_weight({5, 7}), b = empty_weight({5, 7});
  Generator g1(3), g2(3);
  init::xavier_normal_(a, 1.0, g1);
  init::xavier_normal_(b, 1.0, g2);
  CHECK(testing::allclose(a.value(), b.value(), 0.0, 0.0));
  Tensor handle = a;  // same tensor: init changes what every handle sees
  init::zeros_(a);
  CHECK(max_abs(handle.value()) == 0.0);
  init::ones_(a);
  CHECK(mean_of(a.value()) == 1.0);
  init::constant_(a, -2.5);
  CHECK(a.value()(4, 6) == -2.5);
  Tensor empty = empty_weight({0, 3});
  CHECK_NOTHROW(init::kaiming_uniform_(empty));
  CHECK_NOTHROW(init::xavier_normal_(empty));
  CHECK_THROWS_WITH(init::uniform_(a, 1.0, 0.0), Catch::Contains("uniform_ of 'w' (5, 7): invalid b=0"));
  CHECK_THROWS_WITH(init::normal_(a, 0.0, -1.0), Catch::Contains("normal_ of 'w' (5, 7): invalid std=-1"));
}
