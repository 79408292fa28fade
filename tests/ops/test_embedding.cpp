// embedding: rows looked up by index, the backward a scatter-add into a dense gradient; bad indices refused.
#include <limits>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

TEST_CASE("embedding: rows by index, any index shape, and repeated indices add their gradients", "[ops][embedding]") {
  Tensor w(Array{{0.0, 1.0}, {10.0, 11.0}, {20.0, 21.0}}, true, "w");
  const Tensor idx(Array{{2.0, 0.0}, {2.0, 2.0}});
  Tensor y = embedding(idx, w);
  CHECK(y.value() == Array{{{20.0, 21.0}, {0.0, 1.0}}, {{20.0, 21.0}, {20.0, 21.0}}});
  y.backward(Array{{{1.0, 2.0}, {3.0, 4.0}}, {{5.0, 6.0}, {7.0, 8.0}}});
  // Row 2 appears three times: 1 + 5 + 7, 2 + 6 + 8. Row 1 never: zero, but there (dense).
  CHECK(w.grad() == Array{{3.0, 4.0}, {0.0, 0.0}, {13.0, 16.0}});
  CHECK(embedding(Tensor(Array(xt::zeros<double>({0}))), w).shape() == Shape{0, 2});
}

TEST_CASE("embedding: gradcheck of the weight", "[ops][embedding][gradcheck]") {
  const Tensor idx(Array{{4.0, 1.0, 1.0}, {0.0, 4.0, 3.0}});
  REQUIRE_GRADCHECK([&idx](const Tensors& t) { return embedding(idx, t[0]); }, (Tensors{param({5, 3}, 1, "w")}));
}

TEST_CASE("embedding: bad indices and weights name the index, its position and the table", "[ops][embedding][errors]") {
  const Tensor w = param({4, 2}, 2, "w");
  const auto run = [&](double bad) { return message_of([&] { embedding(Tensor(Array{0.0, bad}, false, "ids"), w); }); };
  CHECK_THAT(run(4.0), Catch::Contains("embedding: index 4 at flat position 1 of the indices 'ids' (2)") &&
                           Catch::Contains("'w' (4, 2)") && Catch::Contains("whole numbers in [0, 4)"));
  CHECK_THAT(run(-1.0), Catch::Contains("index -1 at flat position 1"));
  CHECK_THAT(run(std::numeric_limits<double>::quiet_NaN()), Catch::Contains("index nan at flat position 1"));
  CHECK_THAT(run(1.5), Catch::Contains("index 1.5"));
  CHECK_THAT(run(std::numeric_limits<double>::infinity()), Catch::Contains("index inf"));
  CHECK_THAT(message_of([&] { embedding(Tensor(Array{0.0}), param({4}, 3, "w1")); }),
             Catch::Contains("embedding: expected a 2-D weight (num_embeddings, embedding_dim), got 'w1' (4)"));
  CHECK_THAT(message_of([&] { embedding(param({2}, 4, "ids"), w); }),
             Catch::Contains("embedding: the indices 'ids' (2) require grad"));
}
