// softmax and log_softmax: gradchecks over every axis, values by hand,
// stability for huge logits, the fused ops against their composed forms, errors.
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

const Array softmax_123{0.09003057317038046, 0.24472847105479767, 0.6652409557748219};
const Array log_softmax_123{-2.4076059644443806, -1.4076059644443804, -0.4076059644443804};

using AxisOp = Tensor (*)(const Tensor&, long);

void gradcheck_axes(AxisOp op) {
  for (long axis : {0L, 1L, -1L, -2L}) {
    INFO("axis " << axis << " of (3, 4)");
    REQUIRE_GRADCHECK(([op, axis](const Tensors& in) { return op(in[0], axis); }), Tensors{param({3, 4}, 61)});
  }
  for (long axis : {0L, 1L, 2L}) {
    INFO("axis " << axis << " of (2, 3, 4)");
    REQUIRE_GRADCHECK(([op, axis](const Tensors& in) { return op(in[0], axis); }), Tensors{param({2, 3, 4}, 62)});
  }
  REQUIRE_GRADCHECK([op](const Tensors& in) { return op(in[0], -1); }, Tensors{param({5}, 63)});
  // Around huge logits the gradient is as good as around small ones.
  REQUIRE_GRADCHECK([op](const Tensors& in) { return op(in[0], -1); },
                    Tensors{Tensor(Array{{1000.0, 1001.0, 1002.0}, {-1000.0, -1001.0, -1003.0}}, true)});
}

void check_axis_errors(AxisOp op, const std::string& name) {
  Tensor x = param({2, 3}, 64, "x");
  for (long axis : {2L, -3L}) {
    INFO("axis " << axis);
    REQUIRE_THROWS_AS(op(x, axis), ShapeError);
    REQUIRE_THROWS_WITH(op(x, axis), Catch::StartsWith(name + ":") && Catch::Contains("axis " + std::to_string(axis)) &&
                                         Catch::Contains("(2, 3)"));
  }
  REQUIRE_THROWS_WITH(op(Tensor(Array(1.0)), -1), Catch::StartsWith(name + ":") && Catch::Contains("0-d"));
}

}  // namespace

TEST_CASE("softmax: gradcheck over axis 0, 1, -1 and on 3-D", "[ops][softmax]") { gradcheck_axes(softmax); }

TEST_CASE("log_softmax: gradcheck over axis 0, 1, -1 and on 3-D", "[ops][log_softmax]") {
  gradcheck_axes(log_softmax);
}

TEST_CASE("softmax and log_softmax: values by hand", "[ops][softmax][log_softmax]") {
  CHECK(allclose(softmax(constant(Array{1.0, 2.0, 3.0})).value(), softmax_123, 1e-15, 0.0));
  CHECK(allclose(log_softmax(constant(Array{1.0, 2.0, 3.0})).value(), log_softmax_123, 1e-15, 0.0));
  // Over axis 0 of a matrix: each column is its own distribution.
  const Array m{{1.0, 0.0}, {2.0, 0.0}, {3.0, 0.0}};
  const Array by_column = softmax(constant(m), 0).value();
  CHECK(allclose(xt::view(by_column, xt::all(), 0), softmax_123, 1e-15, 0.0));
  CHECK(allclose(xt::view(by_column, xt::all(), 1), Array{1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-15, 0.0));
  // Each distribution sums to 1 along its axis, whichever axis.
  const Tensor x = constant(randn({2, 3, 4}, 65));
  for (long axis : {0L, 1L, 2L, -1L}) {
    INFO("axis " << axis);
    const Shape sums_shape = sum(softmax(x, axis), {axis}).shape();
    CHECK(allclose(sum(softmax(x, axis), {axis}).value(), Array(xt::ones<double>(sums_shape)), 1e-14, 1e-14));
  }
}

TEST_CASE("softmax and log_softmax: huge logits stay finite and correct", "[ops][softmax][log_softmax]") {
  // exp(1000) overflows; subtracting the max makes these the same as [0, 1, 2] (and [1, 2, 3]).
  CHECK(allclose(softmax(constant(Array{1000.0, 1001.0, 1002.0})).value(), softmax_123, 1e-15, 0.0));
  CHECK(allclose(log_softmax(constant(Array{1000.0, 1001.0, 1002.0})).value(), log_softmax_123, 1e-13, 0.0));
  CHECK(allclose(softmax(constant(Array{-1000.0, -999.0, -998.0})).value(), softmax_123, 1e-15, 0.0));
  // Large negative values: log(softmax) would give log(0) = -inf; log_softmax does not.
  const Array y = log_softmax(constant(Array{0.0, -1000.0, -2000.0})).value();
  CHECK(y == Array{0.0, -1000.0, -2000.0});
  CHECK(allclose(log_softmax(constant(Array{-1000.0, -1001.0, -1002.0})).value(),
                 Array{-0.4076059644443804, -1.4076059644443804, -2.4076059644443806}, 1e-13, 0.0));
  Tensor z(Array{{1000.0, 1001.0, 1002.0}, {0.0, -1000.0, -2000.0}}, true);
  sum(log_softmax(z) * Tensor(Array{1.0, 2.0, 3.0})).backward();
  CHECK(xt::all(xt::isfinite(z.grad())));
}

TEST_CASE("softmax and log_softmax: fused ops match their composed forms", "[ops][softmax][log_softmax]") {
  const Tensors inputs{param({3, 4}, 66)};
  for (long axis : {0L, 1L}) {
    INFO("axis " << axis);
    // softmax = exp(x) / Σ exp(x)
    REQUIRE_SAME_OP([axis](const Tensors& in) { return softmax(in[0], axis); },
                    [axis](const Tensors& in) { return exp(in[0]) / sum(exp(in[0]), {axis}, true); }, inputs);
    // log_softmax = x − log Σ exp(x) = log(softmax(x))
    REQUIRE_SAME_OP([axis](const Tensors& in) { return log_softmax(in[0], axis); },
                    [axis](const Tensors& in) { return in[0] - log(sum(exp(in[0]), {axis}, true)); }, inputs);
    REQUIRE_SAME_OP([axis](const Tensors& in) { return log_softmax(in[0], axis); },
                    [axis](const Tensors& in) { return log(softmax(in[0], axis)); }, inputs);
  }
}

TEST_CASE("softmax and log_softmax: axis out of range is refused", "[ops][softmax][log_softmax][errors]") {
  check_axis_errors(softmax, "softmax");
  check_axis_errors(log_softmax, "log_softmax");
}

TEST_CASE("softmax and log_softmax: empty tensors give empty results and gradients", "[ops][softmax][log_softmax][empty]") {
  for (AxisOp op : {AxisOp(softmax), AxisOp(log_softmax)}) {
    for (const Shape& shape : {Shape{0, 3}, Shape{3, 0}, Shape{2, 0, 4}}) {
      for (long axis : {0L, -1L}) {
        INFO("shape " << shape_str(shape) << ", axis " << axis);
        Tensor x(Array(xt::zeros<double>(shape)), true);
        Tensor y = op(x, axis);
        CHECK(y.shape() == shape);
        y.backward(Array(xt::zeros<double>(shape)));
        CHECK(x.grad().shape() == shape);
      }
    }
  }
}
