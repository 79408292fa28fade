// Ops composed into graphs: tensors used more than once, branches that meet
// again, a small MLP and an attention head, all gradchecked end to end.
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("a tensor used more than once: x*x + x", "[ops][graph]") {
  REQUIRE_GRADCHECK([](const Tensors& in) { return in[0] * in[0] + in[0]; }, Tensors{param({3, 4}, 91)});
  Tensor x(Array{1.0, -2.0, 0.5}, true);
  (x * x + x).backward(Array{1.0, 1.0, 2.0});
  CHECK(x.grad() == Array{3.0, -3.0, 4.0});  // (2x + 1) · dy
}

TEST_CASE("a tensor used in two branches that meet again", "[ops][graph]") {
  // x feeds tanh and sigmoid; the branches meet in a product, then x joins once more.
  const auto fn = [](const Tensors& in) {
    const Tensor& x = in[0];
    Tensor left = tanh(x) * 2.0;
    Tensor right = sigmoid(x - 1.0);
    return left * right + exp(x) / (1.0 + x * x);
  };
  REQUIRE_GRADCHECK(fn, Tensors{param({2, 3}, 92)});
  // One branch's output reused through a reduction and a broadcast back.
  REQUIRE_GRADCHECK(([](const Tensors& in) {
                      Tensor centred = in[0] - mean(in[0], {1}, true);
                      return centred / sqrt(mean(centred * centred, {1}, true) + 1e-5);
                    }),
                    Tensors{param({3, 5}, 93)});
}

TEST_CASE("an MLP: matmul, bias, gelu, matmul, log_softmax, cross_entropy", "[ops][graph]") {
  const std::vector<std::int64_t> targets{0, 2, 1, 2};
  const auto mlp = [targets](const Tensors& in) {
    const Tensor &x = in[0], &w1 = in[1], &b1 = in[2], &w2 = in[3], &b2 = in[4];
    Tensor h = gelu(matmul(x, w1) + b1);
    return cross_entropy(log_softmax(matmul(h, w2) + b2, -1), targets);
  };
  Tensors params{param({4, 3}, 94, "x"), param({3, 5}, 95, "w1"), param({5}, 96, "b1"),
                 param({5, 3}, 97, "w2"), param({3}, 98, "b2")};
  REQUIRE_GRADCHECK(mlp, params);
  // And with the tanh gelu, a 3-D batch of sequences and an mse head.
  const auto seq = [](const Tensors& in) {
    Tensor h = gelu(matmul(in[0], in[1]) + in[2], "tanh");
    Tensor y = matmul(h, in[3]);
    return mse_loss(reshape(y, {-1, 2}), in[4]);
  };
  REQUIRE_GRADCHECK(seq, (Tensors{param({2, 3, 4}, 99, "x"), param({4, 5}, 100, "w1"), param({5}, 101, "b1"),
                                  param({5, 2}, 102, "w2"), param({6, 2}, 103, "y")}));
}

TEST_CASE("an attention head: x in three branches, transpose, softmax", "[ops][graph]") {
  const auto head = [](const Tensors& in) {
    const Tensor &x = in[0], &wq = in[1], &wk = in[2], &wv = in[3];
    Tensor q = matmul(x, wq), k = matmul(x, wk), v = matmul(x, wv);
    Tensor scores = softmax(matmul(q, transpose(k)) / std::sqrt(2.0), -1);
    return mean(pow(matmul(scores, v), 2.0), {0});
  };
  REQUIRE_GRADCHECK(head, (Tensors{param({4, 3}, 104, "x"), param({3, 2}, 105, "wq"), param({3, 2}, 106, "wk"),
                                   param({3, 2}, 107, "wv")}));
}
