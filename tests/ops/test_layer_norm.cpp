// layer_norm and rms_norm: worked examples, gradchecks, fused vs composed, bad input.
#include "helpers.hpp"

#include <xtensor/xview.hpp>

using namespace tapegrad;
using tapegrad::testing::allclose;
using tapegrad::testing::param;
using tapegrad::testing::randn;

namespace {
// Values and all gradients of a fused op and its composed twin, for the same inputs and upstream gradient.
struct Grads {
  Array y;
  std::vector<Array> grads;
};
Grads run(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Array>& values,
          const Array& dy) {
  std::vector<Tensor> in;
  for (const Array& v : values) in.emplace_back(v, true);
  Tensor y = fn(in);
  y.backward(dy);
  Grads g{y.value(), {}};
  for (Tensor& t : in) g.grads.push_back(t.grad());
  return g;
}
void require_same(const Grads& fused, const Grads& composed) {
  REQUIRE(allclose(fused.y, composed.y, 1e-12, 1e-13));
  for (std::size_t i = 0; i < fused.grads.size(); ++i) {
    INFO("gradient of input " << i);
    REQUIRE(allclose(fused.grads[i], composed.grads[i], 1e-12, 1e-13));
  }
}
}  // namespace

TEST_CASE("layer_norm: the seed's worked example [3, 4, 5] gives [-1.2247, 0, 1.2247]", "[layers][layer_norm]") {
  Tensor x(Array({{3.0, 4.0, 5.0}}));
  Tensor y = layer_norm(x, {3}, ones({3}), zeros({3}));
  // mean 4, biased variance 2/3, std 0.8165: (x − 4)/sqrt(2/3 + 1e-5)
  const double expected = 1.0 / std::sqrt(2.0 / 3.0 + 1e-5);
  CHECK(y.value()(0, 0) == Approx(-expected).epsilon(1e-14));
  CHECK(y.value()(0, 1) == Approx(0.0).margin(1e-15));
  CHECK(y.value()(0, 2) == Approx(expected).epsilon(1e-14));
  CHECK(y.value()(0, 2) == Approx(1.2247).margin(5e-5));
}

TEST_CASE("layer_norm: rows come out with mean 0 and standard deviation 1", "[layers][layer_norm]") {
  Tensor x(randn({7, 8}, 42, 10.0));  // the seed's (L, d_model) = (7, 8), scaled up
  Tensor y = layer_norm(x, {8}, {}, {}, 0.0);
  for (std::size_t i = 0; i < 7; ++i) {
    double m = 0, v = 0;
    for (std::size_t j = 0; j < 8; ++j) m += y.value()(i, j) / 8;
    for (std::size_t j = 0; j < 8; ++j) v += (y.value()(i, j) - m) * (y.value()(i, j) - m) / 8;
    CHECK(m == Approx(0.0).margin(1e-14));
    CHECK(v == Approx(1.0).epsilon(1e-13));
  }
}

TEST_CASE("layer_norm: dividing by (sigma + eps), as seed 000 does, is a different function", "[layers][layer_norm]") {
  // With eps = 1e-5 the two agree to ~1e-5 on well-scaled rows, but not on a nearly constant row,
  // where sqrt(var + eps) keeps the output bounded and 1/(sigma + eps) does not.
  Array row = {{1.0, 1.0 + 1e-4, 1.0 + 2e-4}};
  Tensor y = layer_norm(Tensor(row), {3});
  const double sigma = std::sqrt(2.0 / 3.0) * 1e-4;
  const double seed_formula = 1e-4 / (sigma + 1e-5);  // (x − μ)/(σ + ε) for the last element
  CHECK(y.value()(0, 2) == Approx(1e-4 / std::sqrt(sigma * sigma + 1e-5)).epsilon(1e-12));
  CHECK(std::abs(y.value()(0, 2) - seed_formula) > 1.0);
}

TEST_CASE("layer_norm: gradcheck of input, weight and bias, 2-D and 3-D", "[layers][layer_norm][gradcheck]") {
  Tensor w = param({5}, 2, "gamma"), b = param({5}, 3, "beta");
  SECTION("2-D (batch, features)") {
    Tensor x = param({4, 5}, 1, "x");
    REQUIRE_GRADCHECK([](auto& in) { return layer_norm(in[0], {5}, in[1], in[2]); }, (std::vector<Tensor>{x, w, b}));
  }
  SECTION("3-D (batch, seq, features)") {
    Tensor x = param({2, 3, 5}, 4, "x");
    REQUIRE_GRADCHECK([](auto& in) { return layer_norm(in[0], {5}, in[1], in[2]); }, (std::vector<Tensor>{x, w, b}));
  }
  SECTION("normalized over the last two dims, no affine") {
    Tensor x = param({2, 3, 5}, 5, "x");
    REQUIRE_GRADCHECK([](auto& in) { return layer_norm(in[0], {3, 5}); }, (std::vector<Tensor>{x}));
  }
}

TEST_CASE("layer_norm: fused and composed agree in value and every gradient", "[layers][layer_norm][fused]") {
  const std::vector<Array> values{randn({2, 3, 6}, 11), randn({6}, 12), randn({6}, 13)};
  const Array dy = randn({2, 3, 6}, 14);
  auto fused = run([](auto& in) { return layer_norm(in[0], {6}, in[1], in[2]); }, values, dy);
  auto composed = run([](auto& in) { return composed::layer_norm(in[0], {6}, in[1], in[2]); }, values, dy);
  require_same(fused, composed);
}

TEST_CASE("rms_norm: values, gradcheck and fused vs composed", "[layers][rms_norm]") {
  Tensor x(Array({{3.0, 4.0}}));
  Tensor y = rms_norm(x, {2}, {}, 0.0);  // rms = sqrt((9 + 16)/2)
  CHECK(y.value()(0, 0) == Approx(3.0 / std::sqrt(12.5)).epsilon(1e-14));
  CHECK(y.value()(0, 1) == Approx(4.0 / std::sqrt(12.5)).epsilon(1e-14));

  Tensor xs = param({3, 4, 5}, 21, "x"), w = param({5}, 22, "gamma");
  REQUIRE_GRADCHECK([](auto& in) { return rms_norm(in[0], {5}, in[1], 1e-6); }, (std::vector<Tensor>{xs, w}));
  Tensor x2 = param({4, 5}, 23, "x");
  REQUIRE_GRADCHECK([](auto& in) { return rms_norm(in[0], {5}, in[1]); }, (std::vector<Tensor>{x2, w}));

  const std::vector<Array> values{randn({4, 6}, 24), randn({6}, 25)};
  const Array dy = randn({4, 6}, 26);
  require_same(run([](auto& in) { return rms_norm(in[0], {6}, in[1], 1e-6); }, values, dy),
               run([](auto& in) { return composed::rms_norm(in[0], {6}, in[1], 1e-6); }, values, dy));
}

TEST_CASE("layer_norm / rms_norm: bad shapes are clear errors", "[layers][layer_norm][errors]") {
  Tensor x = param({2, 4}, 31, "x");
  REQUIRE_THROWS_WITH(layer_norm(x, {3}), Catch::Contains("layer_norm") && Catch::Contains("normalized_shape (3)") &&
                                              Catch::Contains("'x' (2, 4)"));
  REQUIRE_THROWS_WITH(layer_norm(x, {2, 4, 1}), Catch::Contains("does not match"));
  REQUIRE_THROWS_WITH(layer_norm(x, {}), Catch::Contains("empty"));
  REQUIRE_THROWS_WITH(layer_norm(x, {4}, ones({3})), Catch::Contains("weight has shape (3)") && Catch::Contains("(4)"));
  REQUIRE_THROWS_WITH(layer_norm(x, {4}, ones({4}), zeros({4, 1})), Catch::Contains("bias has shape (4, 1)"));
  REQUIRE_THROWS_WITH(rms_norm(x, {5}), Catch::Contains("rms_norm") && Catch::Contains("(5)"));
  REQUIRE_THROWS_WITH(rms_norm(x, {4}, ones({2})), Catch::Contains("rms_norm: weight has shape (2)"));
  tape().clear();
}

TEST_CASE("layer_norm: a large output (streaming stores) holds the same bits as small ones", "[layers][layer_norm]") {
  // 16,257 rows of 129 values: 16.8 MB, above the kernel's streaming threshold (16 MiB), and
  // rows of odd length, so most rows start off a 16-byte boundary (the unaligned head path).
  const std::size_t rows = 16257, n = 129;
  const Array x_big = randn({rows, n}, 21), dy_big = randn({rows, n}, 22);
  const Array gamma = randn({n}, 23), beta = randn({n}, 24);
  Tensor xb(x_big, true);
  Tensor yb = layer_norm(xb, {n}, Tensor(gamma), Tensor(beta));
  yb.backward(dy_big);
  // The same rows, a few at a time: small arrays, plain stores. Row-wise op, so equal to the last bit.
  for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{7777}, rows - 3}) {
    INFO("rows " << first << " to " << first + 2);
    const Array x_small = xt::view(x_big, xt::range(first, first + 3), xt::all());
    const Array dy_small = xt::view(dy_big, xt::range(first, first + 3), xt::all());
    Tensor xs(x_small, true);
    Tensor ys = layer_norm(xs, {n}, Tensor(gamma), Tensor(beta));
    ys.backward(dy_small);
    const Array y_rows = xt::view(yb.value(), xt::range(first, first + 3), xt::all());
    const Array dx_rows = xt::view(xb.grad(), xt::range(first, first + 3), xt::all());
    CHECK(y_rows == ys.value());
    CHECK(dx_rows == xs.grad());
  }
}
