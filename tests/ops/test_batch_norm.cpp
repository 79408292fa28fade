// batch_norm (features in the last axis): train and eval, running statistics,
// gradchecks, fused vs composed, bad input.
#include "helpers.hpp"

using namespace tapegrad;
using tapegrad::testing::allclose;
using tapegrad::testing::param;
using tapegrad::testing::randn;

TEST_CASE("batch_norm normalises columns where layer_norm normalises rows", "[layers][batch_norm]") {
  Tensor x(Array({{1.0, 10.0}, {2.0, 20.0}, {3.0, 30.0}}));
  Tensor bn = batch_norm(x, {}, {}, {}, {}, /*training=*/true, 0.1, 0.0);
  Tensor ln = layer_norm(x, {2}, {}, {}, 0.0);
  const double k = std::sqrt(1.5);  // column (1, 2, 3): mean 2, biased var 2/3
  CHECK(bn.value()(0, 0) == Approx(-k));
  CHECK(bn.value()(2, 1) == Approx(k));  // (10, 20, 30) scales the same way
  CHECK(ln.value()(0, 0) == Approx(-1.0));  // each row of two values becomes (−1, 1)
  CHECK(ln.value()(0, 1) == Approx(1.0));
}

TEST_CASE("batch_norm training updates running stats with the unbiased variance", "[layers][batch_norm]") {
  Tensor x(Array({{1.0, 4.0}, {3.0, 8.0}}));  // column means 2, 6; biased vars 1, 4; unbiased 2, 8
  Tensor rm(Array{0.0, 0.0}), rv(Array{1.0, 1.0});
  batch_norm(x, rm, rv, {}, {}, true, 0.1);
  CHECK(rm.value()(0) == Approx(0.2));
  CHECK(rm.value()(1) == Approx(0.6));
  CHECK(rv.value()(0) == Approx(0.9 + 0.1 * 2.0));
  CHECK(rv.value()(1) == Approx(0.9 + 0.1 * 8.0));
}

TEST_CASE("batch_norm eval uses the running statistics", "[layers][batch_norm]") {
  Tensor x(Array({{1.0, 4.0}, {3.0, 8.0}}));
  Tensor rm(Array{1.0, 2.0}), rv(Array{4.0, 16.0});
  Tensor y = batch_norm(x, rm, rv, Tensor(Array{2.0, 1.0}), Tensor(Array{0.5, 0.0}), false, 0.1, 0.0);
  CHECK(y.value()(1, 0) == Approx((3.0 - 1.0) / 2.0 * 2.0 + 0.5));
  CHECK(y.value()(1, 1) == Approx((8.0 - 2.0) / 4.0));
  CHECK(rm.value()(0) == 1.0);  // untouched in eval
}

TEST_CASE("batch_norm: gradcheck, train and eval, 2-D and 3-D", "[layers][batch_norm][gradcheck]") {
  Tensor w = param({3}, 2, "gamma"), b = param({3}, 3, "beta");
  for (bool training : {true, false}) {
    for (Shape shape : {Shape{5, 3}, Shape{2, 4, 3}}) {
      DYNAMIC_SECTION((training ? "train " : "eval ") << shape_str(shape)) {
        Tensor x = param(shape, 1, "x");
        Tensor rm(randn({3}, 7)), rv(Array(xt::abs(randn({3}, 8)) + 0.5));
        REQUIRE_GRADCHECK(
            [&](auto& in) { return batch_norm(in[0], Tensor(Array(rm.value())), Tensor(Array(rv.value())), in[1], in[2], training); },
            (std::vector<Tensor>{x, w, b}));
      }
    }
  }
}

TEST_CASE("batch_norm: fused and composed agree, train and eval, with the same running stats", "[layers][batch_norm][fused]") {
  for (bool training : {true, false}) {
    const Array xv = randn({3, 4, 5}, 31), wv = randn({5}, 32), bv = randn({5}, 33), dy = randn({3, 4, 5}, 34);
    std::vector<Array> results;
    Array running_after[2];
    for (int composed_version = 0; composed_version < 2; ++composed_version) {
      Tensor x(xv, true), w(wv, true), b(bv, true);
      Tensor rm(Array{0.1, 0.2, 0.3, 0.4, 0.5}), rv(Array{1.0, 2.0, 0.5, 1.5, 3.0});
      Tensor y = composed_version ? composed::batch_norm(x, rm, rv, w, b, training)
                                  : batch_norm(x, rm, rv, w, b, training);
      y.backward(dy);
      for (const Array& a : {y.value(), x.grad(), w.grad(), b.grad()}) results.push_back(a);
      running_after[composed_version] = xt::concatenate(xt::xtuple(rm.value(), rv.value()));
    }
    for (std::size_t i = 0; i < 4; ++i) {
      INFO((training ? "train" : "eval") << ", result " << i);
      REQUIRE(allclose(results[i], results[i + 4], 1e-12, 1e-13));
    }
    REQUIRE(allclose(running_after[0], running_after[1], 1e-14, 1e-15));
  }
}

TEST_CASE("batch_norm: bad input is a clear error", "[layers][batch_norm][errors]") {
  Tensor one_row = param({1, 3}, 41, "x");
  REQUIRE_THROWS_WITH(batch_norm(one_row, {}, {}, {}, {}, true),
                      Catch::Contains("more than 1 value per feature") && Catch::Contains("(1, 3)"));
  Tensor x = param({4, 3}, 42, "x");
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, {}, {}, false), Catch::Contains("eval mode") && Catch::Contains("running_mean"));
  REQUIRE_THROWS_WITH(batch_norm(x, zeros({4}), ones({4}), {}, {}, true), Catch::Contains("running_mean has shape (4)"));
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, ones({2}), {}, true), Catch::Contains("weight has shape (2)"));
  REQUIRE_THROWS_WITH(batch_norm(Tensor(Array{1.0, 2.0}), {}, {}, {}, {}, true), Catch::Contains("features last"));
  REQUIRE_THROWS_WITH(batch_norm(x, zeros({3}), {}, {}, {}, true), Catch::Contains("both running_mean and running_var"));
  tape().clear();
}
