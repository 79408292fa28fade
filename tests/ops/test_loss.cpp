// mse_loss and cross_entropy: gradchecks, hand examples, stability, the fused
// cross_entropy against log_softmax composed by hand, errors.
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// One-hot rows (N, C) for the targets: picks z[i, t_i] as a product.
Array one_hot(const std::vector<std::int64_t>& targets, std::size_t classes) {
  Array h = xt::zeros<double>({targets.size(), classes});
  for (std::size_t i = 0; i < targets.size(); ++i) h(i, static_cast<std::size_t>(targets[i])) = 1.0;
  return h;
}

}  // namespace

TEST_CASE("mse_loss: gradcheck with input and target requiring grad", "[ops][mse_loss]") {
  Tensor input = param({3, 4}, 71, "input"), target = param({3, 4}, 72, "target");
  REQUIRE_GRADCHECK([](const Tensors& in) { return mse_loss(in[0], in[1]); }, (Tensors{input, target}));
  REQUIRE_GRADCHECK([](const Tensors& in) { return mse_loss(in[0], in[1]); },
                    (Tensors{input, Tensor(target.value())}));
  REQUIRE_GRADCHECK([](const Tensors& in) { return mse_loss(in[0], in[1]); }, (Tensors{param({}, 73), param({}, 74)}));
}

TEST_CASE("mse_loss: values by hand", "[ops][mse_loss]") {
  const Tensor loss = mse_loss(constant(Array{1.0, 2.0, 3.0}), constant(Array{2.0, 2.0, 5.0}));
  CHECK(loss.dim() == 0);
  CHECK(loss.item() == Approx(5.0 / 3.0).epsilon(1e-15));  // (1 + 0 + 4) / 3
  Tensor p(Array{1.0, 2.0, 3.0}, true), t(Array{2.0, 2.0, 5.0}, true);
  mse_loss(p, t).backward();
  CHECK(allclose(p.grad(), Array{-2.0 / 3, 0.0, -4.0 / 3}));  // 2 (p − t) / n
  CHECK(allclose(t.grad(), Array{2.0 / 3, 0.0, 4.0 / 3}));
}

TEST_CASE("mse_loss: shapes must be equal", "[ops][mse_loss][errors]") {
  Tensor input = param({2, 3}, 75, "input"), target = param({3, 2}, 76, "target");
  REQUIRE_THROWS_AS(mse_loss(input, target), ShapeError);
  REQUIRE_THROWS_WITH(mse_loss(input, target), Catch::StartsWith("mse_loss:") && Catch::Contains("'input' (2, 3)") &&
                                                   Catch::Contains("'target' (3, 2)"));
  // Broadcastable shapes are refused too: (2, 3) against (3,) is usually a bug.
  REQUIRE_THROWS_WITH(mse_loss(input, param({3}, 77)), Catch::Contains("(2, 3)") && Catch::Contains("(3)"));
}

TEST_CASE("cross_entropy: gradcheck", "[ops][cross_entropy]") {
  const std::vector<std::int64_t> targets{0, 4, 2, 2};
  REQUIRE_GRADCHECK([targets](const Tensors& in) { return cross_entropy(in[0], targets); },
                    Tensors{param({4, 5}, 78, "logits", 2.0)});
  REQUIRE_GRADCHECK([](const Tensors& in) { return cross_entropy(in[0], {1}); }, Tensors{param({1, 2}, 79)});
  REQUIRE_GRADCHECK([](const Tensors& in) { return cross_entropy(in[0], {0, 1}); },
                    Tensors{Tensor(Array{{1000.0, 1001.0, 1002.0}, {-1000.0, 0.0, 1000.0}}, true)});
}

TEST_CASE("cross_entropy: a hand example and huge logits", "[ops][cross_entropy]") {
  // Row 0: −log softmax([1, 2, 3])[2] = 0.40760596...; row 1: −log(1/3) = 1.09861228...
  const Array z{{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}};
  const double expected = (0.4076059644443804 + 1.0986122886681098) / 2;  // 0.7531091265562451 in PyTorch
  CHECK(cross_entropy(constant(z), {2, 0}).item() == Approx(expected).epsilon(1e-15));
  CHECK(cross_entropy(constant(z), {2, 0}).dim() == 0);
  // Its gradient: (softmax − onehot) / N.
  Tensor zt(z, true);
  cross_entropy(zt, {2, 0}).backward();
  const Array p = softmax(constant(z)).value();
  CHECK(allclose(zt.grad(), Array((p - one_hot({2, 0}, 3)) / 2.0)));
  // exp(1000) would overflow; the answer is the same as for [0, 1, 2].
  const Array huge{{1000.0, 1001.0, 1002.0}, {1000.0, 1001.0, 1002.0}};
  const double huge_loss = cross_entropy(constant(huge), {2, 0}).item();
  CHECK(huge_loss == Approx((0.4076059644443804 + 2.4076059644443806) / 2).epsilon(1e-13));
  CHECK(cross_entropy(constant(matrix({{-1000.0, 0.0}})), {0}).item() == Approx(1000.0).epsilon(1e-15));
}

TEST_CASE("cross_entropy: fused op matches -mean(log_softmax · onehot)", "[ops][cross_entropy]") {
  const std::vector<std::int64_t> targets{3, 0, 1};
  const Tensor h(one_hot(targets, 4));
  REQUIRE_SAME_OP([targets](const Tensors& in) { return cross_entropy(in[0], targets); },
                  [h](const Tensors& in) { return -mean(sum(log_softmax(in[0], 1) * h, {1})); },
                  Tensors{param({3, 4}, 80)});
}

TEST_CASE("cross_entropy_sum: cross_entropy's sum, chained over chunks", "[ops][cross_entropy]") {
  // (the lab's chunked evaluations rest on it: tests/lab/test_lab_eval_chunks.cpp)
  Generator gen(3);
  const Tensor logits(gen.randn({7, 5}), true, "logits");  // requires grad: an op on it would be recorded
  const std::vector<std::int64_t> t{0, 4, 2, 2, 1, 3, 0};
  const double whole = cross_entropy(logits, t).item();
  CHECK(cross_entropy_sum(logits, t) / 7.0 == whole);  // bitwise
  const Tensor top(xt::eval(xt::view(logits.value(), xt::range(0, 3), xt::all())), true, "top");
  const Tensor bottom(xt::eval(xt::view(logits.value(), xt::range(3, 7), xt::all())));
  CHECK(cross_entropy_sum(bottom, {2, 1, 3, 0}, cross_entropy_sum(top, {0, 4, 2})) / 7.0 == whole);
  tape().clear();
  cross_entropy_sum(top, {0, 4, 2});
  CHECK(tape().empty());  // a plain number: nothing recorded
  CHECK_THROWS_WITH(cross_entropy_sum(top, {0, 4, 9}), Catch::Contains("cross_entropy_sum") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(cross_entropy_sum(top, {0, 4}), Catch::StartsWith("cross_entropy_sum:") && Catch::Contains("2 targets"));
}

TEST_CASE("cross_entropy: bad targets and logits are refused", "[ops][cross_entropy][errors]") {
  Tensor logits = param({2, 3}, 81, "logits");
  for (std::int64_t bad : {3, -1, 100}) {
    INFO("target " << bad);
    REQUIRE_THROWS_AS(cross_entropy(logits, {0, bad}), Error);
    REQUIRE_THROWS_WITH(cross_entropy(logits, {0, bad}),
                        Catch::StartsWith("cross_entropy:") && Catch::Contains("target " + std::to_string(bad)) &&
                            Catch::Contains("position 1") && Catch::Contains("'logits' (2, 3)") &&
                            Catch::Contains("0 <= t < 3"));
  }
  REQUIRE_THROWS_AS(cross_entropy(logits, {0}), ShapeError);
  REQUIRE_THROWS_WITH(cross_entropy(logits, {0, 1, 2}), Catch::StartsWith("cross_entropy:") &&
                                                            Catch::Contains("'logits' (2, 3)") &&
                                                            Catch::Contains("3 targets"));
  REQUIRE_THROWS_WITH(cross_entropy(param({2, 3, 4}, 82, "z"), {0, 1}),
                      Catch::StartsWith("cross_entropy:") && Catch::Contains("'z' (2, 3, 4)") &&
                          Catch::Contains("(N, C)"));
  REQUIRE_THROWS_WITH(cross_entropy(param({3}, 83, "z"), {0}), Catch::Contains("'z' (3)") && Catch::Contains("(N, C)"));
}
