// Elementwise arithmetic: gradchecks (with every kind of broadcasting),
// forward values by hand, and the shape errors.
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

using BinaryOp = Tensor (*)(const Tensor&, const Tensor&);

// (a's shape, b's shape): equal shapes, then each way broadcasting can stretch one side or both.
const std::vector<std::pair<Shape, Shape>> broadcast_cases = {
    {{3, 4}, {3, 4}},  // no broadcasting
    {{5, 4}, {4}},     // bias (n,) over a batch (b, n)
    {{4}, {5, 4}},
    {{3, 4}, {1, 4}},  // row vector
    {{1, 4}, {3, 4}},
    {{3, 4}, {3, 1}},  // column vector
    {{3, 1}, {3, 4}},
    {{3, 4}, {}},      // 0-d scalar tensor
    {{}, {3, 4}},
    {{3, 1}, {1, 4}},  // both sides stretched
    {{2, 3, 4}, {3, 1}},
};

// Gradchecks op on every broadcast case, both inputs requiring grad. b is kept
// away from 0 so that div is smooth around it.
void gradcheck_broadcasts(BinaryOp op) {
  for (const auto& [sa, sb] : broadcast_cases) {
    INFO("a " << shape_str(sa) << ", b " << shape_str(sb));
    Tensor a = param(sa, 1, "a");
    Tensor b(away_from_zero(sb, 2), true, "b");
    Tensor y = op(a, b);
    CHECK(y.shape() == broadcast_shapes("test", sa, sb));
    REQUIRE_GRADCHECK([op](const Tensors& in) { return op(in[0], in[1]); }, (Tensors{a, b}));
    // Only one side requiring grad must work too (the other gets nothing).
    Tensor c(b.value(), false, "c");
    REQUIRE_GRADCHECK([op](const Tensors& in) { return op(in[0], in[1]); }, (Tensors{a, c}));
  }
}

// op refuses shapes that cannot broadcast and says which op and which shapes.
void check_shape_error(BinaryOp op, const std::string& name) {
  const std::size_t recorded = tape().size();
  Tensor a(Array(xt::zeros<double>({2, 3})), true);
  Tensor b(Array(xt::zeros<double>({3, 2})));
  REQUIRE_THROWS_AS(op(a, b), ShapeError);
  REQUIRE_THROWS_WITH(op(a, b), Catch::StartsWith(name + ":") && Catch::Contains("(2, 3)") &&
                                    Catch::Contains("(3, 2)") && Catch::Contains("broadcast"));
  Tensor c(Array(xt::zeros<double>({2})));
  REQUIRE_THROWS_WITH(op(c, a), Catch::StartsWith(name + ":") && Catch::Contains("(2)") && Catch::Contains("(2, 3)"));
  CHECK(tape().size() == recorded);  // nothing recorded for a refused op
}

const Array A{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
const Array bias{10.0, 20.0, 40.0};

}  // namespace

TEST_CASE("add: gradcheck with broadcasting, values, shape errors", "[ops][add]") {
  gradcheck_broadcasts(add);
  CHECK(add(constant(A), constant(bias)).value() == Array{{11.0, 22.0, 43.0}, {14.0, 25.0, 46.0}});
  CHECK(add(constant(matrix({{1.0}, {2.0}})), constant(matrix({{10.0, 20.0}}))).value() ==
        Array{{11.0, 21.0}, {12.0, 22.0}});
  CHECK((constant(A) + constant(Array(0.5))).value() == Array(A + 0.5));
  check_shape_error(add, "add");
}

TEST_CASE("sub: gradcheck with broadcasting, values, shape errors", "[ops][sub]") {
  gradcheck_broadcasts(sub);
  CHECK(sub(constant(A), constant(bias)).value() == Array{{-9.0, -18.0, -37.0}, {-6.0, -15.0, -34.0}});
  CHECK((constant(Array(1.0)) - constant(A)).value() == Array{{0.0, -1.0, -2.0}, {-3.0, -4.0, -5.0}});
  check_shape_error(sub, "sub");
}

TEST_CASE("mul: gradcheck with broadcasting, values, shape errors", "[ops][mul]") {
  gradcheck_broadcasts(mul);
  CHECK(mul(constant(A), constant(bias)).value() == Array{{10.0, 40.0, 120.0}, {40.0, 100.0, 240.0}});
  CHECK((constant(matrix({{2.0}, {-1.0}})) * constant(A)).value() == Array{{2.0, 4.0, 6.0}, {-4.0, -5.0, -6.0}});
  check_shape_error(mul, "mul");
}

TEST_CASE("div: gradcheck with broadcasting, values, shape errors", "[ops][div]") {
  gradcheck_broadcasts(div);
  CHECK(div(constant(A), constant(Array{2.0, 4.0, 8.0})).value() == Array{{0.5, 0.5, 0.375}, {2.0, 1.25, 0.75}});
  check_shape_error(div, "div");
}

TEST_CASE("neg: gradcheck and values", "[ops][neg]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return neg(in[0]); }, Tensors{param({3, 4}, 3)});
  REQUIRE_GRADCHECK([](const Tensors& in) { return -in[0]; }, Tensors{param({}, 4)});
  CHECK((-constant(A)).value() == Array{{-1.0, -2.0, -3.0}, {-4.0, -5.0, -6.0}});
}

TEST_CASE("scalar ops: add/mul/div with a double and every operator form", "[ops][scalar]") {
  using Fn = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"add(a, 2.5)", [](const Tensor& a) { return add(a, 2.5); }},
      {"mul(a, -1.5)", [](const Tensor& a) { return mul(a, -1.5); }},
      {"div(3, a)", [](const Tensor& a) { return div(3.0, a); }},
      {"a + 2", [](const Tensor& a) { return a + 2.0; }},
      {"2 + a", [](const Tensor& a) { return 2.0 + a; }},
      {"a - 2", [](const Tensor& a) { return a - 2.0; }},
      {"2 - a", [](const Tensor& a) { return 2.0 - a; }},
      {"a * 3", [](const Tensor& a) { return a * 3.0; }},
      {"3 * a", [](const Tensor& a) { return 3.0 * a; }},
      {"a / 4", [](const Tensor& a) { return a / 4.0; }},
      {"4 / a", [](const Tensor& a) { return 4.0 / a; }},
  };
  for (const auto& [name, op] : ops) {
    INFO(name);
    Tensor a(away_from_zero({3, 4}, 5), true, "a");
    REQUIRE_GRADCHECK([op = op](const Tensors& in) { return op(in[0]); }, Tensors{a});
  }
  const Tensor x = constant(Array{1.0, -2.0, 4.0});
  CHECK(add(x, 2.5).value() == Array{3.5, 0.5, 6.5});
  CHECK(mul(x, -1.5).value() == Array{-1.5, 3.0, -6.0});
  CHECK(div(2.0, x).value() == Array{2.0, -1.0, 0.5});
  CHECK((2.0 - x).value() == Array{1.0, 4.0, -2.0});
  CHECK((x - 2.0).value() == Array{-1.0, -4.0, 2.0});
  CHECK((x / 4.0).value() == Array{0.25, -0.5, 1.0});
  CHECK((4.0 / x).value() == Array{4.0, -2.0, 1.0});
  CHECK((3.0 * x).value() == Array{3.0, -6.0, 12.0});
}

TEST_CASE("exp and log: gradcheck and values", "[ops][exp][log]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return exp(in[0]); }, Tensors{param({3, 4}, 6)});
  REQUIRE_GRADCHECK([](const Tensors& in) { return log(in[0]); }, Tensors{positive_param({3, 4}, 7)});
  CHECK(allclose(exp(constant(Array{0.0, 1.0, -1.0})).value(), Array{1.0, M_E, 1.0 / M_E}));
  CHECK(allclose(log(constant(Array{1.0, M_E, 0.5})).value(), Array{0.0, 1.0, -M_LN2}));
  CHECK(log(constant(Array{0.0})).value()(0) == -INFINITY);  // as NumPy/PyTorch: no exception
}

TEST_CASE("sqrt: gradcheck and values", "[ops][sqrt]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return sqrt(in[0]); }, Tensors{positive_param({3, 4}, 8)});
  CHECK(sqrt(constant(Array{4.0, 2.25, 0.0})).value() == Array{2.0, 1.5, 0.0});
}

TEST_CASE("pow: gradcheck for several exponents and values", "[ops][pow]") {
  for (double p : {2.0, 3.0, 0.5, -1.5, 1.0, 0.0}) {
    INFO("exponent " << p);
    REQUIRE_GRADCHECK([p](const Tensors& in) { return pow(in[0], p); }, Tensors{positive_param({3, 4}, 9)});
  }
  // Integer exponents of negative numbers are fine.
  REQUIRE_GRADCHECK([](const Tensors& in) { return pow(in[0], 3.0); }, Tensors{param({3, 4}, 10)});
  CHECK(pow(constant(Array{2.0, -3.0, 0.5}), 2.0).value() == Array{4.0, 9.0, 0.25});
  CHECK(allclose(pow(constant(Array{4.0, 9.0}), -0.5).value(), Array{0.5, 1.0 / 3.0}));
}

TEST_CASE("broadcasting ops: an empty batch broadcast against a bias gives the bias a zero gradient", "[ops][add][sub][mul][div][empty]") {
  using BinaryOp = Tensor (*)(const Tensor&, const Tensor&);
  for (BinaryOp op : {BinaryOp(add), BinaryOp(sub), BinaryOp(mul), BinaryOp(div)}) {
    for (const Shape& b_shape : {Shape{3}, Shape{1, 3}, Shape{1}, Shape{}}) {
      INFO("b of shape " << shape_str(b_shape));
      Tensor x(Array(xt::zeros<double>({0, 3})), true);
      Tensor b(Array(xt::ones<double>(b_shape)), true);
      Tensor y = op(x, b);  // torch: (0, 3), and b.grad = zeros
      REQUIRE(y.shape() == Shape{0, 3});
      y.backward(Array(xt::zeros<double>({0, 3})));
      CHECK(b.grad() == Array(xt::zeros<double>(b_shape)));
      CHECK(x.grad().shape() == Shape{0, 3});
    }
  }
}

TEST_CASE("broadcast_shapes: a 0 against a 1 gives 0 (NumPy, PyTorch)", "[ops][add][empty]") {
  CHECK(broadcast_shapes("add", {0}, {1}) == Shape{0});
  CHECK(broadcast_shapes("add", {1}, {0}) == Shape{0});
  CHECK(broadcast_shapes("add", {2, 1}, {0}) == Shape{2, 0});
  CHECK(broadcast_shapes("add", {0, 3}, {}) == Shape{0, 3});
  CHECK_THROWS_AS(broadcast_shapes("add", {0}, {2}), ShapeError);
  CHECK(add(constant(Array::from_shape({0})), constant(Array{1.0})).shape() == Shape{0});
}

TEST_CASE("pow: exponent 0 has gradient 0 everywhere, 0 included (PyTorch)", "[ops][pow]") {
  Tensor x(Array{0.0, 2.0, -3.0}, true);
  Tensor y = pow(x, 0.0);
  CHECK(y.value() == Array{1.0, 1.0, 1.0});  // 0^0 = 1, as std::pow and torch
  y.backward(Array{5.0, 6.0, 7.0});
  CHECK(x.grad() == Array{0.0, 0.0, 0.0});
  // Other exponents keep the power rule at 0: 2·0 = 0, and 1·0^0 = 1.
  Tensor z(Array{0.0}, true);
  pow(z, 2.0).backward(Array{1.0});
  CHECK(z.grad() == Array{0.0});
  z.zero_grad();
  pow(z, 1.0).backward(Array{1.0});
  CHECK(z.grad() == Array{1.0});
}
