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

// ---- cross_entropy with CrossEntropyOptions (ignore_index, label_smoothing), (N, C) and (B, T, C) ----

namespace {

// The smoothed targets (rows, C) as PyTorch's definition: (1 − ε)·onehot + ε/C for a counted
// row, a zero row for an ignored one; the loss is then −Σ (targets ⊙ log_softmax) / count.
Array smoothed_targets(const std::vector<std::int64_t>& targets, std::size_t classes, const CrossEntropyOptions& o) {
  Array h = xt::zeros<double>({targets.size(), classes});
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] == o.ignore_index) continue;
    for (std::size_t c = 0; c < classes; ++c) h(i, c) = o.label_smoothing / static_cast<double>(classes);
    h(i, static_cast<std::size_t>(targets[i])) += 1.0 - o.label_smoothing;
  }
  return h;
}

}  // namespace

TEST_CASE("cross_entropy options: gradcheck with ignore_index and label_smoothing, (N, C) and (B, T, C)",
          "[ops][cross_entropy][gradcheck]") {
  const std::vector<std::int64_t> rows{1, -100, 4, 0, -100, 2};
  const CrossEntropyOptions smooth{-100, 0.1};
  REQUIRE_GRADCHECK(([rows, smooth](const Tensors& in) { return cross_entropy(in[0], rows, smooth); }),
                    Tensors{param({6, 5}, 84, "logits", 2.0)});
  const std::vector<std::int64_t> sequence{3, 0, 1, 0, 4, 0};  // (B, T) = (2, 3), 0 is the padding id
  const CrossEntropyOptions pad{0, 0.25};
  REQUIRE_GRADCHECK(([sequence, pad](const Tensors& in) { return cross_entropy(in[0], sequence, pad); }),
                    Tensors{param({2, 3, 5}, 85, "logits", 2.0)});
  REQUIRE_GRADCHECK([](const Tensors& in) { return cross_entropy(in[0], {1, 2}, CrossEntropyOptions{-100, 1.0}); },
                    Tensors{param({2, 3}, 86, "logits")});
}

TEST_CASE("cross_entropy options: values by hand (F.cross_entropy), the mean over counted rows", "[ops][cross_entropy]") {
  // Row 0: −logp = (2.41, 1.41, 0.41); row 1 ignored; row 2: −logp = (0.0134, 5.0134, 5.0134).
  const Array z{{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}, {5.0, 0.0, 0.0}};
  const std::vector<std::int64_t> t{2, -100, 0};
  // torch 1.13, float64: F.cross_entropy(z, t), with label_smoothing=0.2, with label_smoothing=1.0.
  CHECK(cross_entropy(constant(z), t, {}).item() == Approx(0.21049593308291456).epsilon(1e-14));
  CHECK(cross_entropy(constant(z), t, {-100, 0.2}).item() == Approx(0.6438292664162479).epsilon(1e-14));
  CHECK(cross_entropy(constant(z), t, {-100, 1.0}).item() == Approx(2.3771625997495813).epsilon(1e-14));
  // The gradient: (softmax − smoothed one-hot) / count, a zero row where the target is ignored.
  Tensor zt(z, true);
  cross_entropy(zt, t, {-100, 0.2}).backward();
  const CrossEntropyOptions o{-100, 0.2};
  Array want = (softmax(constant(z)).value() - smoothed_targets(t, 3, o)) / 2.0;
  xt::view(want, 1, xt::all()) = 0.0;
  CHECK(allclose(zt.grad(), want, 1e-14, 1e-15));
  CHECK(zt.grad()(1, 0) == 0.0);
}

TEST_CASE("cross_entropy options: equals −Σ smoothed targets ⊙ log_softmax / count composed", "[ops][cross_entropy]") {
  const std::vector<std::int64_t> t{3, 7, 0, 1, 7};  // 7 ignored
  const CrossEntropyOptions o{7, 0.3};
  const Tensor h(smoothed_targets(t, 4, o));
  REQUIRE_SAME_OP(([t, o](const Tensors& in) { return cross_entropy(in[0], t, o); }),
                  [h](const Tensors& in) { return -sum(log_softmax(in[0], 1) * h) / 3.0; }, Tensors{param({5, 4}, 87)});
}

TEST_CASE("cross_entropy options: the defaults give the two-argument form's bits, and (B, T, C) = (B·T, C)",
          "[ops][cross_entropy]") {
  Generator gen(4);
  const std::vector<std::int64_t> t{0, 4, 2, 2, 1, 3};
  Tensor a(gen.randn({6, 5}), true, "a"), b(a.value(), true, "b");
  Tensor plain = cross_entropy(a, t);
  plain.backward();  // backward releases the tape: one loss at a time
  Tensor with_options = cross_entropy(b, t, CrossEntropyOptions{});
  with_options.backward();
  CHECK(plain.item() == with_options.item());  // bitwise
  CHECK(a.grad() == b.grad());
  // The LLM layout: logits (B, T, C) and the targets flattened row-major, as logits.view(-1, C).
  Array cube = a.value();
  cube.reshape({2, 3, 5});
  Tensor c(cube, true, "c"), flat(a.value(), true, "flat");
  const CrossEntropyOptions o{2, 0.1};
  Tensor lc = cross_entropy(c, t, o);
  lc.backward();
  Tensor lf = cross_entropy(flat, t, o);
  lf.backward();
  CHECK(lc.item() == lf.item());
  REQUIRE(c.grad().shape() == Shape{2, 3, 5});
  Array cube_grad = c.grad();
  cube_grad.reshape({6, 5});
  const Array cube_grad_as_rows = cube_grad;
  CHECK(cube_grad_as_rows == flat.grad());
}

TEST_CASE("cross_entropy options: bad targets, smoothing, shapes and all-ignored are refused", "[ops][cross_entropy][errors]") {
  Tensor logits = param({2, 3}, 88, "logits");
  REQUIRE_THROWS_WITH(cross_entropy(logits, {0, 3}, {}),
                      Catch::StartsWith("cross_entropy: target 3 at position 1") && Catch::Contains("'logits' (2, 3)") &&
                          Catch::Contains("0 <= t < 3, or ignore_index = -100"));
  REQUIRE_THROWS_WITH(cross_entropy(logits, {-1, 0}, {}), Catch::Contains("target -1 at position 0"));
  REQUIRE_THROWS_WITH(cross_entropy(logits, {-100, 0}, {-1, 0.0}), Catch::Contains("target -100 at position 0") &&
                                                                       Catch::Contains("ignore_index = -1"));
  for (const double bad : {-0.1, 1.5, std::nan("")}) {
    INFO("label_smoothing " << bad);
    REQUIRE_THROWS_WITH(cross_entropy(logits, {0, 1}, {-100, bad}),
                        Catch::StartsWith("cross_entropy: label_smoothing must be in [0, 1]") &&
                            Catch::Contains("'logits' (2, 3)"));
  }
  REQUIRE_THROWS_WITH(cross_entropy(logits, {-100, -100}, {}),
                      Catch::StartsWith("cross_entropy: all 2 targets equal ignore_index = -100") &&
                          Catch::Contains("PyTorch returns NaN"));
  REQUIRE_THROWS_AS(cross_entropy(param({2, 3, 4}, 89, "z"), {0, 1, 2}, {}), ShapeError);
  REQUIRE_THROWS_WITH(cross_entropy(param({2, 3, 4}, 89, "z"), {0, 1, 2}, {}),
                      Catch::Contains("'z' (2, 3, 4) have 6 rows (B·T") && Catch::Contains("3 targets"));
  REQUIRE_THROWS_WITH(cross_entropy(param({2, 2, 3, 4}, 90, "w"), {0}, {}),
                      Catch::Contains("(N, C) or (B, T, C)") && Catch::Contains("'w' (2, 2, 3, 4)"));
  REQUIRE_THROWS_WITH(cross_entropy(param({0, 3}, 91, "e"), {}, {}), Catch::Contains("empty batch"));
}
