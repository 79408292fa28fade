// repeat_kv (GQA's kv-head sharing): which query head gets which kv head (repeat_interleave, not tile),
// the backward's sum over each group, gradcheck, n_rep = 1, bad input.
#include "ops/op_common.hpp"

#include <xtensor/xview.hpp>

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("repeat_kv: kv head j goes to query heads j·n_rep .. j·n_rep + n_rep − 1 (repeat_interleave)", "[repeat_kv]") {
  // (B, Hkv, S, D) = (1, 2, 1, 2): kv head 0 = (1, 2), kv head 1 = (3, 4).
  Array x = Array::from_shape({1, 2, 1, 2});
  x(0, 0, 0, 0) = 1.0, x(0, 0, 0, 1) = 2.0, x(0, 1, 0, 0) = 3.0, x(0, 1, 0, 1) = 4.0;
  const Tensor repeated = repeat_kv(constant(x), 3);
  REQUIRE(repeated.shape() == Shape{1, 6, 1, 2});
  const Array& y = repeated.value();
  // Heads 0, 1, 2 read kv head 0; heads 3, 4, 5 read kv head 1 (tile would give 0, 1, 0, 1, 0, 1).
  const double first[] = {1.0, 1.0, 1.0, 3.0, 3.0, 3.0};
  for (std::size_t h = 0; h < 6; ++h) {
    CHECK(y(0, h, 0, 0) == first[h]);
    CHECK(y(0, h, 0, 1) == first[h] + 1.0);
  }
}

TEST_CASE("repeat_kv: every batch and position copied whole, n_rep = 1 is the identity", "[repeat_kv]") {
  const Array x = randn({2, 3, 4, 5}, 11);
  const Tensor repeated = repeat_kv(constant(x), 2);
  REQUIRE(repeated.shape() == Shape{2, 6, 4, 5});
  const Array& y = repeated.value();
  for (std::size_t h = 0; h < 6; ++h) {
    const Array got = xt::view(y, xt::all(), h, xt::all(), xt::all());
    const Array want = xt::view(x, xt::all(), h / 2, xt::all(), xt::all());
    CHECK(got == want);
  }
  CHECK(repeat_kv(constant(x), 1).value() == x);
}

TEST_CASE("repeat_kv: the backward sums the gradients of each kv head's copies", "[repeat_kv]") {
  Tensor x = param({1, 2, 1, 1}, 3, "x");
  Array dy = Array::from_shape({1, 4, 1, 1});
  dy(0, 0, 0, 0) = 1.0, dy(0, 1, 0, 0) = 10.0, dy(0, 2, 0, 0) = 100.0, dy(0, 3, 0, 0) = 1000.0;
  sum(mul(repeat_kv(x, 2), Tensor(dy))).backward();
  CHECK(x.grad()(0, 0, 0, 0) == 11.0);    // heads 0 and 1
  CHECK(x.grad()(0, 1, 0, 0) == 1100.0);  // heads 2 and 3
}

TEST_CASE("repeat_kv: gradcheck", "[repeat_kv][gradcheck]") {
  for (std::size_t n_rep : {1, 2, 3}) {
    Tensor x = param({2, 2, 3, 2}, 5 + n_rep, "x");
    REQUIRE_GRADCHECK([n_rep](auto& in) { return repeat_kv(in[0], n_rep); }, (Tensors{x}));
  }
}

TEST_CASE("repeat_kv: bad input names the op, the shape and what was expected", "[repeat_kv][errors]") {
  REQUIRE_THROWS_WITH(repeat_kv(constant(randn({2, 3, 4}, 1)), 2),
                      Catch::Contains("repeat_kv") && Catch::Contains("(B, Hkv, S, D)") && Catch::Contains("(2, 3, 4)"));
  REQUIRE_THROWS_WITH(repeat_kv(constant(randn({1, 2, 3, 4}, 1)), 0),
                      Catch::Contains("repeat_kv") && Catch::Contains("n_rep=0") && Catch::Contains("(1, 2, 3, 4)") &&
                          Catch::Contains("n_rep >= 1"));
}
