// sum and mean: gradchecks over chosen axes (negative too, with and without
// keepdims, and over everything), values and shapes by hand, axis errors.
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

using Reduction = Tensor (*)(const Tensor&, const Axes&, bool);
using FullReduction = Tensor (*)(const Tensor&);

// Every way of choosing axes on a (2, 3, 4) tensor that the ops must support.
const std::vector<Axes> axis_cases = {{0}, {1}, {2}, {-1}, {-3}, {0, 2}, {-1, 0}, {1, 2}, {0, 1, 2}, {}};

void gradcheck_reduction(Reduction op, FullReduction all) {
  for (const Axes& axes : axis_cases) {
    for (bool keepdims : {false, true}) {
      INFO("axes " << Catch::Detail::stringify(axes) << ", keepdims " << keepdims);
      REQUIRE_GRADCHECK(([op, axes, keepdims](const Tensors& in) { return op(in[0], axes, keepdims); }),
                        Tensors{param({2, 3, 4}, 21)});
    }
  }
  REQUIRE_GRADCHECK([all](const Tensors& in) { return all(in[0]); }, Tensors{param({2, 3, 4}, 22)});
  REQUIRE_GRADCHECK([all](const Tensors& in) { return all(in[0]); }, Tensors{param({}, 23)});
}

void check_axis_errors(Reduction op, const std::string& name) {
  Tensor x = param({2, 3}, 24, "x");
  for (long axis : {2L, -3L}) {
    INFO("axis " << axis);
    REQUIRE_THROWS_AS(op(x, {axis}, false), ShapeError);
    REQUIRE_THROWS_WITH(op(x, {axis}, false), Catch::StartsWith(name + ":") &&
                                                  Catch::Contains("axis " + std::to_string(axis)) &&
                                                  Catch::Contains("(2, 3)") && Catch::Contains("-2 to 1"));
  }
  REQUIRE_THROWS_AS(op(x, {1, 1}, false), ShapeError);
  REQUIRE_THROWS_WITH(op(x, {1, -1}, false), Catch::StartsWith(name + ":") && Catch::Contains("axis 1") &&
                                                 Catch::Contains("repeated") && Catch::Contains("(2, 3)"));
}

const Array M{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};

}  // namespace

TEST_CASE("sum: gradcheck over chosen axes, keepdims, everything", "[ops][sum]") {
  gradcheck_reduction(sum, sum);
}

TEST_CASE("mean: gradcheck over chosen axes, keepdims, everything", "[ops][mean]") {
  gradcheck_reduction(mean, mean);
}

TEST_CASE("sum: values and shapes by hand", "[ops][sum]") {
  const Tensor m = constant(M);
  CHECK(sum(m, {0}).value() == Array{5.0, 7.0, 9.0});
  CHECK(sum(m, {0}, true).shape() == Shape{1, 3});
  CHECK(sum(m, {0}, true).value() == matrix({{5.0, 7.0, 9.0}}));
  CHECK(sum(m, {-1}).value() == Array{6.0, 15.0});
  CHECK(sum(m, {1}, true).value() == matrix({{6.0}, {15.0}}));
  CHECK(sum(m, {0, 1}, true).shape() == Shape{1, 1});
  const Tensor total = sum(m);
  CHECK(total.dim() == 0);
  CHECK(total.item() == 21.0);
  CHECK(sum(m, {0, 1}).value() == total.value());
  const Tensor t = constant(xt::arange<double>(24.0).reshape({2, 3, 4}));
  CHECK(sum(t, {0, 2}).value() == Array{60.0, 92.0, 124.0});
  CHECK(sum(t, {-3, -1}, true).shape() == Shape{1, 3, 1});
}

TEST_CASE("mean: values and shapes by hand", "[ops][mean]") {
  const Tensor m = constant(M);
  CHECK(mean(m, {0}).value() == Array{2.5, 3.5, 4.5});
  CHECK(mean(m, {1}).value() == Array{2.0, 5.0});
  CHECK(mean(m, {1}, true).shape() == Shape{2, 1});
  CHECK(mean(m, {-2}, true).value() == matrix({{2.5, 3.5, 4.5}}));
  CHECK(mean(m).item() == 3.5);
  CHECK(mean(m).dim() == 0);
  const Tensor t = constant(xt::arange<double>(24.0).reshape({2, 3, 4}));
  CHECK(mean(t, {0, 2}).value() == Array{7.5, 11.5, 15.5});
  // Gradient of a mean spreads 1/count evenly.
  Tensor x(M, true);
  mean(x, {1}).backward(Array{3.0, 6.0});
  CHECK(x.grad() == Array{{1.0, 1.0, 1.0}, {2.0, 2.0, 2.0}});
}

TEST_CASE("sum and mean: out-of-range and repeated axes are refused", "[ops][sum][mean][errors]") {
  check_axis_errors(sum, "sum");
  check_axis_errors(mean, "mean");
  REQUIRE_THROWS_WITH(mean(Tensor(Array(xt::zeros<double>({0, 3})))), Catch::StartsWith("mean:") &&
                                                                         Catch::Contains("(0, 3)") &&
                                                                         Catch::Contains("empty"));
}

TEST_CASE("sum and mean: an empty axis list reduces everything, as in PyTorch 1.13", "[ops][sum][mean]") {
  const Tensor t = constant(xt::arange<double>(24.0).reshape({2, 3, 4}));
  CHECK(sum(t, {}).dim() == 0);
  CHECK(sum(t, {}).item() == 276.0);
  CHECK(sum(t, {}, true).shape() == Shape{1, 1, 1});
  CHECK(mean(t, {}).item() == 11.5);
  CHECK(mean(t, {}, true).shape() == Shape{1, 1, 1});
  CHECK(mean(t, {}, true).value()(0, 0, 0) == 11.5);
  Tensor x(M, true);
  mean(x, {}).backward();
  CHECK(x.grad() == xt::ones<double>({2, 3}) / 6.0);
  // As mean(x): the mean of an empty tensor is refused.
  REQUIRE_THROWS_WITH(mean(constant(xt::zeros<double>({0, 3})), {}),
                      Catch::StartsWith("mean:") && Catch::Contains("(0, 3)") && Catch::Contains("empty"));
}

TEST_CASE("sum and mean: axes of size 0 give PyTorch's shapes and values", "[ops][sum][mean][empty]") {
  Tensor x(Array(xt::zeros<double>({0, 3})), true, "x");
  // torch.zeros(0, 3).sum(1) -> shape (0); .sum(0) -> [0, 0, 0]; .mean(0) -> [nan, nan, nan]
  CHECK(sum(x, {1}).shape() == Shape{0});
  CHECK(sum(x, {1}, true).shape() == Shape{0, 1});
  CHECK(sum(x, {0}).value() == Array{0.0, 0.0, 0.0});
  CHECK(sum(x, {0}, true).shape() == Shape{1, 3});
  CHECK(sum(x).item() == 0.0);
  CHECK(mean(x, {1}).shape() == Shape{0});
  const Array m = mean(x, {0}).value();
  CHECK(m.shape() == Shape{3});
  CHECK(xt::all(xt::isnan(m)));
  CHECK(xt::all(xt::isnan(mean(x, {0, 1}).value())));
  // Their gradients are empty, of x's shape.
  sum(x, {0}).backward(Array{1.0, 2.0, 3.0});
  CHECK(x.grad().shape() == Shape{0, 3});
  x.zero_grad();
  mean(x, {1}).backward(Array::from_shape({0}));
  CHECK(x.grad().shape() == Shape{0, 3});
  x.zero_grad();
  sum(mean(x, {0})).backward();
  CHECK(x.grad().shape() == Shape{0, 3});
}
