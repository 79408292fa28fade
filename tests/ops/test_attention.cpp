// scaled_dot_product_attention: by hand on a tiny example (values and every gradient), finite-difference
// gradchecks, fused == composed to 1e-12, what the causal mask hides, and errors naming the shapes.
#include <cmath>

#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

GradcheckFn fused(bool causal) {
  return [causal](const Tensors& t) { return scaled_dot_product_attention(t[0], t[1], t[2], causal); };
}
GradcheckFn composed_op(bool causal) {
  return [causal](const Tensors& t) { return composed::scaled_dot_product_attention(t[0], t[1], t[2], causal); };
}

}  // namespace

TEST_CASE("scaled_dot_product_attention: a 2-query example by hand, values and gradients", "[ops][attention]") {
  // Dh = 4, so scores = q kᵀ / 2. Query 0 is zero: equal scores, P = [1/2, 1/2].
  // Query 1 · key 1 / 2 = ln 3, · key 0 = 0: P = [1/4, 3/4].
  const double ln3 = std::log(3.0);
  Tensor q(matrix({{0, 0, 0, 0}, {2, 0, 0, 0}}), true, "q");
  Tensor k(matrix({{0, 0, 0, 0}, {ln3, 0, 0, 0}}), true, "k");
  Tensor v(matrix({{4, 0}, {0, 8}}), true, "v");
  Tensor y = scaled_dot_product_attention(q, k, v);
  CHECK(allclose(y.value(), matrix({{2, 4}, {1, 6}}), 1e-15, 1e-15));  // P v
  y.backward(Array(xt::ones<double>({2, 2})));
  // dv = Pᵀ dy: rows Σ_i P[i, j] = 1/2 + 1/4 and 1/2 + 3/4.
  CHECK(allclose(v.grad(), matrix({{0.75, 0.75}, {1.25, 1.25}}), 1e-15, 1e-15));
  // dP = dy vᵀ = [4, 8] in each row; dS = P ⊙ (dP − dP·P) / 2 = [−1/2, 1/2] and [−3/8, 3/8].
  // dq = dS k, dk = dSᵀ q.
  CHECK(allclose(q.grad(), matrix({{ln3 / 2, 0, 0, 0}, {0.375 * ln3, 0, 0, 0}}), 1e-15, 1e-15));
  CHECK(allclose(k.grad(), matrix({{-0.75, 0, 0, 0}, {0.75, 0, 0, 0}}), 1e-15, 1e-15));

  SECTION("causal: query 0 sees key 0 only") {
    const Tensor yc = scaled_dot_product_attention(q, k, v, true);
    CHECK(allclose(yc.value(), matrix({{4, 0}, {1, 6}}), 1e-15, 1e-15));
  }
}

TEST_CASE("scaled_dot_product_attention: one tape entry, while composed is the formula step by step", "[ops][attention][tape]") {
  tape().clear();
  const Tensors in = attention_inputs({2, 3}, 4, 4, 5, 5, 10);
  const Tensor y = scaled_dot_product_attention(in[0], in[1], in[2], true);
  CHECK(y.shape() == Shape{2, 3, 4, 5});
  REQUIRE(tape().size() == 1);
  CHECK(tape()[0].op == "scaled_dot_product_attention");
  tape().clear();
  composed::scaled_dot_product_attention(in[0], in[1], in[2], true);
  std::vector<std::string> ops;
  for (const TapeEntry& e : tape().entries) ops.push_back(e.op);
  CHECK(ops == std::vector<std::string>{"transpose", "batched_matmul", "mul_scalar", "add", "softmax", "batched_matmul"});
  tape().clear();
}

TEST_CASE("scaled_dot_product_attention: gradcheck of q, k and v", "[ops][attention][gradcheck]") {
  struct Case {
    Shape batch;
    std::size_t sq, sk, dh, dv;
  };
  for (const Case& c : {Case{{2, 2}, 3, 3, 4, 4}, Case{{2}, 3, 5, 2, 3}, Case{{}, 4, 2, 3, 1}, Case{{1, 2}, 1, 1, 2, 2}}) {
    for (const bool causal : {false, true}) {
      INFO("batch " << shape_str(c.batch) << ", Sq " << c.sq << ", Sk " << c.sk << ", Dh " << c.dh << ", Dv " << c.dv
                    << ", causal " << causal);
      const Tensors in = attention_inputs(c.batch, c.sq, c.sk, c.dh, c.dv, 20);
      REQUIRE_GRADCHECK(fused(causal), in);
      REQUIRE_GRADCHECK(composed_op(causal), in);
    }
  }
}

TEST_CASE("scaled_dot_product_attention: fused equals composed to 1e-12, values and every gradient", "[ops][attention]") {
  for (const bool causal : {false, true}) {
    for (const Shape batch : {Shape{2, 3}, Shape{4}}) {
      INFO("causal " << causal << ", batch " << shape_str(batch));
      // Scaled-up inputs: sharp softmaxes, where a slip in the max shift or the mask would show.
      Tensors in = attention_inputs(batch, 5, 6, 4, 3, 30);
      for (Tensor& t : in) t.mutable_value() *= 3.0;
      const auto a = value_and_grads(fused(causal), in);
      const auto b = value_and_grads(composed_op(causal), in);
      CHECK(allclose(a.value, b.value, 1e-12, 1e-12));
      for (std::size_t i = 0; i < 3; ++i) {
        INFO("grad of input " << i);
        CHECK(allclose(a.grads[i], b.grads[i], 1e-12, 1e-12));
      }
    }
  }
}

TEST_CASE("scaled_dot_product_attention: causal row i is attention over keys 0..i, and later keys change nothing",
          "[ops][attention]") {
  const Tensors in = attention_inputs({2}, 4, 4, 3, 2, 40);
  no_grad guard;
  const Array causal = scaled_dot_product_attention(in[0], in[1], in[2], true).value();
  const Array full = scaled_dot_product_attention(in[0], in[1], in[2], false).value();
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("query " << i);
    const Tensor qi(Array(xt::view(in[0].value(), xt::all(), xt::range(i, i + 1), xt::all())));
    const Tensor ki(Array(xt::view(in[1].value(), xt::all(), xt::range(0, i + 1), xt::all())));
    const Tensor vi(Array(xt::view(in[2].value(), xt::all(), xt::range(0, i + 1), xt::all())));
    const Array want = scaled_dot_product_attention(qi, ki, vi).value();
    CHECK(allclose(Array(xt::view(causal, xt::all(), xt::range(i, i + 1), xt::all())), want, 1e-14, 1e-14));
  }
  CHECK_FALSE(allclose(causal, full, 1e-3, 1e-3));  // the mask matters ...
  CHECK(allclose(Array(xt::view(causal, xt::all(), 3, xt::all())), Array(xt::view(full, xt::all(), 3, xt::all())),
                 1e-14, 1e-14));  // ... except for the last query, which sees every key
  // Changing the last key and value leaves the first three outputs as they were.
  Array k2 = in[1].value(), v2 = in[2].value();
  xt::view(k2, xt::all(), 3, xt::all()) += 5.0;
  xt::view(v2, xt::all(), 3, xt::all()) -= 7.0;
  const Array changed = scaled_dot_product_attention(in[0], Tensor(k2), Tensor(v2), true).value();
  CHECK((Array(xt::view(changed, xt::all(), xt::range(0, 3), xt::all())) ==
        Array(xt::view(causal, xt::all(), xt::range(0, 3), xt::all()))));
}

TEST_CASE("scaled_dot_product_attention: only the gradients asked for", "[ops][attention]") {
  const Tensors in = attention_inputs({2}, 3, 3, 2, 2, 50);
  const Tensor q(in[0].value()), k(in[1].value());
  Tensor v = in[2];
  sum(scaled_dot_product_attention(q, k, v)).backward();
  CHECK(v.has_grad());
  CHECK_FALSE(q.has_grad());
  Tensor q2 = param(q.shape(), 51);
  sum(scaled_dot_product_attention(q2, k, Tensor(v.value()))).backward();
  CHECK(q2.has_grad());
  CHECK_FALSE(k.has_grad());
}

TEST_CASE("scaled_dot_product_attention: huge scores stay finite (the max is subtracted)", "[ops][attention]") {
  const Tensors in = attention_inputs({1}, 3, 3, 2, 2, 60);
  const Tensor q(in[0].value() * 1e3), k(in[1].value() * 1e3);
  CHECK(xt::all(xt::isfinite(scaled_dot_product_attention(q, k, in[2], true).value())));
}

TEST_CASE("scaled_dot_product_attention: bad shapes name the op, the shapes and what was expected",
          "[ops][attention][errors]") {
  const Tensor q = param({2, 3, 4}, 70, "q"), k = param({2, 5, 4}, 71, "k"), v = param({2, 5, 6}, 72, "v");
  const auto run = [](const Tensor& a, const Tensor& b, const Tensor& c) {
    return message_of([&] { scaled_dot_product_attention(a, b, c); });
  };
  const std::string dh = run(q, param({2, 5, 3}, 73, "k"), v);
  CHECK_THAT(dh, Catch::Contains("scaled_dot_product_attention") && Catch::Contains("q 'q' (2, 3, 4)") &&
                     Catch::Contains("k 'k' (2, 5, 3)") && Catch::Contains("head width Dh") &&
                     Catch::Contains("expected q (..., Sq, Dh), k (..., Sk, Dh), v (..., Sk, Dv)"));
  CHECK_THAT(run(q, k, param({2, 4, 6}, 74, "v")), Catch::Contains("number of keys Sk") && Catch::Contains("(2, 4, 6)"));
  CHECK_THAT(run(q, param({3, 5, 4}, 75, "k"), param({3, 5, 6}, 76, "v")),
             Catch::Contains("leading (batch, head) axes differ at axis 0"));
  CHECK_THAT(run(q, param({1, 2, 5, 4}, 77), v), Catch::Contains("same number (>= 2) of dimensions"));
  CHECK_THAT(run(param({4}, 78), param({4}, 79), param({4}, 80)), Catch::Contains("same number (>= 2) of dimensions"));
  CHECK_THAT(run(param({2, 0}, 81), param({3, 0}, 82), param({3, 1}, 83)), Catch::Contains("Dh is 0"));
  CHECK_THAT(run(param({2, 2}, 84), param({0, 2}, 85), param({0, 1}, 86)), Catch::Contains("no keys (Sk = 0)"));
  CHECK_THAT(message_of([&] { composed::scaled_dot_product_attention(q, param({2, 5, 3}, 87), v); }),
             Catch::Contains("composed::scaled_dot_product_attention") && Catch::Contains("head width Dh"));
}
