// nn::Embedding: PyTorch's N(0, 1) init and name, lookups for tokens and positions, gradcheck, errors.
#include <cmath>

#include <xtensor/xview.hpp>

#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

TEST_CASE("Embedding: weight (num, dim) drawn from N(0, 1), reproducible per seed", "[nn][embedding]") {
  Generator gen(1);
  Embedding m(2000, 8, gen);
  CHECK(names(m.named_parameters()) == std::vector<std::string>{"weight"});
  CHECK(m.weight.shape() == Shape{2000, 8});
  const double mean = xt::mean(m.weight.value())();
  const double std = std::sqrt(xt::mean(xt::square(m.weight.value() - mean))());
  INFO("mean " << mean << ", std " << std);  // 16000 draws: standard errors about 0.008 and 0.006
  CHECK(std::abs(mean) < 0.04);
  CHECK(std::abs(std - 1.0) < 0.03);
  Generator again(1);
  CHECK(Embedding(2000, 8, again).weight.value() == m.weight.value());
  CHECK_THAT(m.to_string(), Catch::Contains("Embedding(2000, 8)"));
}

TEST_CASE("Embedding: token plus learned position embeddings, (B, S) ids -> (B, S, d)", "[nn][embedding]") {
  Generator gen(2);
  Embedding tokens(7, 4, gen), positions(5, 4, gen);
  const Tensor ids(Array{{6.0, 0.0, 6.0}, {2.0, 3.0, 1.0}});
  const Tensor where(Array{0.0, 1.0, 2.0});  // 0 .. S−1, broadcast over the batch
  const Tensor x = tokens(ids) + positions(where);
  REQUIRE(x.shape() == Shape{2, 3, 4});
  CHECK((Array(xt::view(x.value(), 1, 2)) ==
        Array(xt::view(tokens.weight.value(), 1) + xt::view(positions.weight.value(), 2))));
  sum(x).backward();
  const Array twice = xt::full_like(Array(xt::zeros<double>({4})), 2.0);
  CHECK((Array(xt::view(tokens.weight.grad(), 6)) == twice));     // token 6 occurs twice
  CHECK((Array(xt::view(positions.weight.grad(), 0)) == twice));  // position 0 once per sequence
  CHECK((Array(xt::view(positions.weight.grad(), 4)) == xt::zeros<double>({4})));  // position 4 unused
}

TEST_CASE("Embedding: gradcheck of the weight, and bad ids name the op", "[nn][embedding][gradcheck][errors]") {
  Generator gen(3);
  Embedding m(5, 3, gen);
  const Tensor ids(Array{{4.0, 1.0}, {1.0, 0.0}});
  REQUIRE_GRADCHECK([&](const std::vector<Tensor>&) { return m(ids); }, m.parameters());
  CHECK_THAT(message_of([&] { m(Tensor(Array{5.0})); }), Catch::Contains("embedding: index 5") &&
                                                             Catch::Contains("whole numbers in [0, 5)"));
}
