// feed_forward: the FFN as one fused op, checked by hand, by finite differences and
// against the same computation composed from linear, relu / gelu and linear.
#include "ops/op_common.hpp"

#include <cmath>
#include <limits>

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// FFN parameters (in 3 → hidden 5 → out 2) and a 3-D input, in the order feed_forward takes them.
Tensors ffn_inputs(std::uint64_t seed) {
  return {param({2, 4, 3}, seed, "x"), param({5, 3}, seed + 1, "w1"), param({5}, seed + 2, "b1"),
          param({2, 5}, seed + 3, "w2"), param({2}, seed + 4, "b2")};
}

// Finite differences across ReLU's kink would be wrong: check that no hidden value is near it.
double smallest_hidden_magnitude(const Tensors& in) {
  no_grad guard;
  return xt::amin(xt::abs(linear(in[0], in[1], in[2]).value()))();
}

}  // namespace

TEST_CASE("feed_forward: y = relu(x W1ᵀ + b1) W2ᵀ + b2 by hand", "[layers][feed_forward]") {
  Tensor x(matrix({{1.0, 2.0}}), true);
  Tensor w1(matrix({{1.0, 0.0}, {0.0, -1.0}, {1.0, 1.0}}), true), b1(Array{0.0, 0.5, -4.0}, true);
  Tensor w2(matrix({{2.0, 3.0, 4.0}}), true), b2(Array{0.5}, true);
  // h = [1, -1.5, -1] → relu → [1, 0, 0] → y = 2·1 + 0.5
  Tensor y = feed_forward(x, w1, b1, w2, b2);
  CHECK(y.value() == matrix({{2.5}}));
  y.backward(Array(matrix({{1.0}})));
  CHECK(b2.grad() == Array{1.0});
  CHECK(w2.grad() == matrix({{1.0, 0.0, 0.0}}));               // dW2 = dyᵀ a
  CHECK(b1.grad() == Array{2.0, 0.0, 0.0});                    // dh = dy W2 ⊙ [h > 0]
  CHECK(w1.grad() == matrix({{2.0, 4.0}, {0.0, 0.0}, {0.0, 0.0}}));  // dW1 = dhᵀ x
  CHECK(x.grad() == matrix({{2.0, 0.0}}));                     // dx = dh W1
}

TEST_CASE("feed_forward: one tape entry holding x and the four parameters", "[layers][feed_forward][tape]") {
  tape().clear();
  const Tensors in = ffn_inputs(30);
  Tensor y = feed_forward(in[0], in[1], in[2], in[3], in[4]);
  REQUIRE(tape().size() == 1);
  CHECK(tape()[0].op == "feed_forward");
  CHECK(tape()[0].inputs.size() == 5);
  CHECK(y.shape() == Shape{2, 4, 2});
  tape().clear();
  feed_forward(in[0], in[1], Tensor{}, in[3], Tensor{});  // no biases: x, w1, w2
  CHECK(tape()[0].inputs.size() == 3);
  tape().clear();
  composed::feed_forward(in[0], in[1], in[2], in[3], in[4]);
  CHECK(tape().size() == 3);  // linear, relu, linear
  tape().clear();
}

TEST_CASE("feed_forward: gradcheck for each activation, with and without biases", "[layers][feed_forward][gradcheck]") {
  const Tensors in = ffn_inputs(40);
  REQUIRE(smallest_hidden_magnitude(in) > 1e-3);
  for (const std::string activation : {"relu", "gelu", "gelu_tanh", "silu"}) {
    INFO("activation = " << activation);
    REQUIRE_GRADCHECK([activation](const Tensors& t) { return feed_forward(t[0], t[1], t[2], t[3], t[4], activation); },
                      in);
    const auto no_biases = [activation](const Tensors& t) {
      return feed_forward(t[0], t[1], Tensor{}, t[2], Tensor{}, activation);
    };
    REQUIRE_GRADCHECK(no_biases, (Tensors{in[0], in[1], in[3]}));
  }
}

TEST_CASE("feed_forward: fused equals linear → activation → linear, values and every gradient", "[layers][feed_forward]") {
  for (const std::string activation : {"relu", "gelu", "gelu_tanh", "silu"}) {
    INFO("activation = " << activation);
    const auto fused = [activation](const Tensors& t) { return feed_forward(t[0], t[1], t[2], t[3], t[4], activation); };
    const auto parts = [activation](const Tensors& t) {
      return composed::feed_forward(t[0], t[1], t[2], t[3], t[4], activation);
    };
    REQUIRE_SAME_OP(fused, parts, ffn_inputs(50));
  }
  // For ReLU the same products and sums in the same order: equal to the last bit.
  const Tensors in = ffn_inputs(60);
  const auto fused = value_and_grads([](const Tensors& t) { return feed_forward(t[0], t[1], t[2], t[3], t[4]); }, in);
  const auto comp =
      value_and_grads([](const Tensors& t) { return composed::feed_forward(t[0], t[1], t[2], t[3], t[4]); }, in);
  CHECK(fused.value == comp.value);
  for (std::size_t i = 0; i < in.size(); ++i) CHECK(fused.grads[i] == comp.grads[i]);
}

TEST_CASE("feed_forward: only the gradients asked for, a frozen input costs nothing", "[layers][feed_forward]") {
  Tensor x(randn({4, 3}, 70));  // data, not a parameter
  Tensor w1 = param({5, 3}, 71), b1 = param({5}, 72), w2 = param({2, 5}, 73), b2 = param({2}, 74);
  sum(feed_forward(x, w1, b1, w2, b2)).backward();
  CHECK_FALSE(x.has_grad());
  CHECK(w1.has_grad());
  CHECK(b2.has_grad());
  // Frozen first layer: nothing flows below the second linear.
  Tensor w1_frozen(randn({5, 3}, 71)), b1_frozen(randn({5}, 72));
  w2.zero_grad();
  sum(feed_forward(x, w1_frozen, b1_frozen, w2, b2)).backward();
  CHECK(w2.has_grad());
}

TEST_CASE("feed_forward: empty batch and NaN", "[layers][feed_forward]") {
  Tensors in = ffn_inputs(80);
  Tensor empty = param({0, 3}, 81);
  Tensor y = feed_forward(empty, in[1], in[2], in[3], in[4]);
  CHECK(y.shape() == Shape{0, 2});
  sum(y).backward();
  CHECK(in[1].grad() == xt::zeros<double>({5, 3}));  // an empty sum
  in[1].zero_grad();
  // A NaN in x reaches y (ReLU keeps NaN, as torch does), not a silent 0.
  Array bad = randn({1, 3}, 82);
  bad(0, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK(xt::all(xt::isnan(feed_forward(Tensor(bad), in[1], in[2], in[3], in[4]).value())));
  tape().clear();
}

TEST_CASE("feed_forward: a NaN hidden unit passes its gradient through ReLU, as composed and PyTorch", "[layers][feed_forward]") {
  // b1 = NaN makes hidden unit 1 NaN in every row; with a finite dy, dh = dy W2 is finite
  // there and ReLU passes it (torch zeroes only where the activation is <= 0): db1[1] is finite.
  Tensors fused = ffn_inputs(90), composed_in = ffn_inputs(90);
  for (Tensors* in : {&fused, &composed_in}) (*in)[2].mutable_value()(1) = std::numeric_limits<double>::quiet_NaN();
  const Array dy = randn({2, 4, 2}, 91);
  feed_forward(fused[0], fused[1], fused[2], fused[3], fused[4]).backward(dy);
  composed::feed_forward(composed_in[0], composed_in[1], composed_in[2], composed_in[3], composed_in[4]).backward(dy);
  const Array db1 = fused[2].grad();
  INFO("fused db1 " << db1 << "\ncomposed db1 " << composed_in[2].grad());
  CHECK(std::isfinite(db1(1)));
  CHECK(db1(1) != 0.0);
  CHECK(allclose(db1, composed_in[2].grad(), 1e-10, 1e-12));
}

TEST_CASE("feed_forward: bad shapes and activations are clear errors", "[layers][feed_forward][errors]") {
  const Tensors in = ffn_inputs(90);
  const Tensor &x = in[0], &w1 = in[1], &b1 = in[2], &w2 = in[3], &b2 = in[4];
  REQUIRE_THROWS_WITH(feed_forward(x, param({5, 4}, 1, "w1"), b1, w2, b2),
                      Catch::StartsWith("feed_forward:") && Catch::Contains("'x' (2, 4, 3)") &&
                          Catch::Contains("'w1' (5, 4)") && Catch::Contains("(..., 4)"));
  REQUIRE_THROWS_WITH(feed_forward(x, w1, b1, param({2, 6}, 2, "w2"), b2),
                      Catch::Contains("hidden layer x w1ᵀ (2, 4, 5)") && Catch::Contains("'w2' (2, 6)"));
  REQUIRE_THROWS_WITH(feed_forward(x, w1, param({4}, 3), w2, b2), Catch::Contains("b1 has shape (4)"));
  REQUIRE_THROWS_WITH(feed_forward(x, w1, b1, w2, param({5}, 4)), Catch::Contains("b2 has shape (5)"));
  REQUIRE_THROWS_WITH(feed_forward(x, param({5}, 5), b1, w2, b2), Catch::Contains("w1 must be 2-D"));
  REQUIRE_THROWS_WITH(feed_forward(x, w1, b1, w2, b2, "swish"),
                      Catch::Contains("\"relu\", \"gelu\", \"gelu_tanh\", \"silu\" or \"swiglu\"") &&
                          Catch::Contains("\"swish\""));
  // swiglu is the gated FFN: two weights have no place for its third.
  REQUIRE_THROWS_WITH(feed_forward(x, w1, b1, w2, b2, "swiglu"),
                      Catch::StartsWith("feed_forward: activation \"swiglu\" is gated") &&
                          Catch::Contains("'w1' (5, 3)") && Catch::Contains("nn::FFN(d, hidden, \"swiglu\")"));
  REQUIRE_THROWS_WITH(feed_forward(param({}, 6), w1, b1, w2, b2), Catch::Contains("does not fit"));
  tape().clear();
}
