// gradcheck itself: the op tests above lean on it, so it must be able to fail.
// Ops with deliberately wrong backwards must be caught, and the report must
// say which input and which element.
#include "ops/op_common.hpp"

#include "tapegrad/autograd/tape.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// y = 2x, whose backward is wrong by `factor` (1 would be right).
Tensor double_it(const Tensor& x, double factor) {
  return record("double_it", {x}, 2.0 * x.value(), [factor](const Array& dy, const TapeEntry& e) {
    e.inputs[0].accumulate_grad(2.0 * factor * dy);
  });
}

// y = 2x, whose backward is right except at one flat index.
Tensor double_it_but(const Tensor& x, std::size_t wrong_at) {
  return record("double_it_but", {x}, 2.0 * x.value(), [wrong_at](const Array& dy, const TapeEntry& e) {
    Array g = 2.0 * dy;
    g.data()[wrong_at] += 0.01;
    e.inputs[0].accumulate_grad(g);
  });
}

}  // namespace

TEST_CASE("gradcheck passes a right backward and counts what it checked", "[ops][gradcheck]") {
  Tensor a = param({2, 3}, 111, "a"), b = param({2, 3}, 112, "b");
  const GradcheckResult r = gradcheck([](const Tensors& in) { return in[0] + double_it(in[1], 1.0); }, {a, b});
  INFO(r.report);
  CHECK(r.ok);
  CHECK(static_cast<bool>(r));
  CHECK(r.checked == 12);
  CHECK(r.excess <= 0.0);
  CHECK(r.report.find("passed") != std::string::npos);
  // The inputs are restored exactly and left without gradients.
  CHECK(a.value() == randn({2, 3}, 111));
  CHECK_FALSE(a.has_grad());
  CHECK_FALSE(b.has_grad());
}

TEST_CASE("gradcheck fails a backward that is off by a factor, naming input and index", "[ops][gradcheck]") {
  Tensor a = param({2, 3}, 113, "a"), b = param({2, 3}, 114, "b");
  const GradcheckResult r = gradcheck([](const Tensors& in) { return in[0] + double_it(in[1], 1.1); }, {a, b});
  INFO(r.report);
  CHECK_FALSE(r.ok);
  CHECK_FALSE(static_cast<bool>(r));
  CHECK(r.input == 1);                    // b, not a: a's gradient is right
  CHECK(r.input_label == "'b' (2, 3)");
  CHECK(r.index.front() == '(');
  CHECK(r.analytic == Approx(1.1 * r.numeric).epsilon(1e-6));  // the wrong factor, seen through the projection
  CHECK(r.excess > 0.0);
  CHECK(r.report.find("FAILED") != std::string::npos);
  CHECK(r.report.find("input 1 'b' (2, 3) at " + r.index) != std::string::npos);
  // A 1% error is caught too (rtol is 0.1%).
  CHECK_FALSE(gradcheck([](const Tensors& in) { return double_it(in[0], 1.01); }, {b}).ok);
}

TEST_CASE("gradcheck finds the one wrong element and reports its index", "[ops][gradcheck]") {
  Tensor x = param({3, 4}, 115, "x");
  const GradcheckResult r = gradcheck([](const Tensors& in) { return double_it_but(in[0], 6); }, {x});
  INFO(r.report);
  CHECK_FALSE(r.ok);
  CHECK(r.input == 0);
  CHECK(r.index == "(1, 2)");  // flat index 6 of a (3, 4) tensor
  CHECK(r.analytic - r.numeric == Approx(0.01).epsilon(1e-4));
  CHECK(r.report.find("'x' (3, 4) at (1, 2)") != std::string::npos);
}

TEST_CASE("gradcheck fails a backward that forgets an input, and a check of nothing", "[ops][gradcheck]") {
  const auto forgetful = [](const Tensors& in) {
    return record("forgetful_mul", {in[0], in[1]}, in[0].value() * in[1].value(),
                  [](const Array& dy, const TapeEntry& e) { e.inputs[0].accumulate_grad(dy * e.inputs[1].value()); });
  };
  Tensor a = param({4}, 116, "a"), b = param({4}, 117, "b");
  const GradcheckResult r = gradcheck(forgetful, {a, b});
  INFO(r.report);
  CHECK_FALSE(r.ok);
  CHECK(r.input == 1);
  CHECK(r.analytic == 0.0);
  CHECK(r.numeric != 0.0);
  // No input requiring grad: nothing was checked, which must not count as a pass.
  const GradcheckResult none = gradcheck([](const Tensors& in) { return in[0] * 2.0; }, {Tensor(Array{1.0, 2.0})});
  CHECK_FALSE(none.ok);
  CHECK(none.checked == 0);
  CHECK(none.report.find("nothing to check") != std::string::npos);
}
