// narrow: a slice along one axis, its gradient the slice's place in a zero array; errors.
#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("narrow: values along the first, middle and last axis", "[ops][narrow]") {
  const Tensor x = constant(Array{{0.0, 1.0, 2.0, 3.0}, {4.0, 5.0, 6.0, 7.0}});
  CHECK(narrow(x, 1, 1, 2).value() == Array{{1.0, 2.0}, {5.0, 6.0}});
  CHECK(narrow(x, -1, 3, 1).value() == matrix({{3.0}, {7.0}}));
  CHECK(narrow(x, 0, 1, 1).value() == matrix({{4.0, 5.0, 6.0, 7.0}}));
  CHECK(narrow(x, 1, 4, 0).shape() == Shape{2, 0});
}

TEST_CASE("narrow: the gradient lands in the slice, zeros elsewhere (and gradcheck)", "[ops][narrow][gradcheck]") {
  Tensor x = param({2, 4}, 1, "x");
  narrow(x, 1, 1, 2).backward(Array{{1.0, 2.0}, {3.0, 4.0}});
  CHECK(x.grad() == Array{{0.0, 1.0, 2.0, 0.0}, {0.0, 3.0, 4.0, 0.0}});
  for (const long dim : {0L, 1L, 2L, -1L}) {
    INFO("dim " << dim);
    REQUIRE_GRADCHECK([dim](const Tensors& t) { return narrow(t[0], dim, 1, 2); }, (Tensors{param({3, 4, 5}, 2)}));
  }
  // Two slices of one tensor: their gradients add up where they overlap.
  REQUIRE_GRADCHECK([](const Tensors& t) { return narrow(t[0], 0, 0, 2) * narrow(t[0], 0, 1, 2); },
                    (Tensors{param({3, 2}, 3)}));
}

TEST_CASE("narrow: out-of-range dims and slices are refused", "[ops][narrow][errors]") {
  const Tensor x = param({2, 4}, 4, "x");
  CHECK_THAT(message_of([&] { narrow(x, 2, 0, 1); }), Catch::Contains("narrow: dim 2 is out of range for 'x' (2, 4)"));
  CHECK_THAT(message_of([&] { narrow(x, 1, 3, 2); }),
             Catch::Contains("narrow: start 3 + length 2 exceeds dimension 1 (size 4) of 'x' (2, 4)"));
  CHECK_THAT(message_of([&] { narrow(x, 1, 5, 0); }), Catch::Contains("exceeds dimension 1"));
}
