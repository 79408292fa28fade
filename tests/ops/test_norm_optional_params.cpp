// Found by notebook 04: the fused normalizations' backward with some of
// (input, weight, bias) not needing a gradient. A default-constructed xarray
// has size 1, so "size() == 0 means absent" wrote through a null Tensor.
#include "helpers.hpp"

using namespace tapegrad;

TEST_CASE("rms_norm / layer_norm backward with a weight but no bias", "[normalization][notebook]") {
  Tensor x = testing::param({2, 8}, 1, "x");
  Tensor w = testing::param({8}, 2, "weight");
  REQUIRE_GRADCHECK([](const std::vector<Tensor>& in) { return rms_norm(in[0], {8}, in[1]); },
                    (std::vector<Tensor>{x, w}));
  REQUIRE_GRADCHECK([](const std::vector<Tensor>& in) { return layer_norm(in[0], {8}, in[1]); },
                    (std::vector<Tensor>{x, w}));
}

TEST_CASE("layer_norm backward when the input does not require grad", "[normalization][notebook]") {
  Tensor x(testing::randn({3, 4}, 3));  // no grad: only the parameters learn
  Tensor w = testing::param({4}, 4, "weight");
  Tensor b = testing::param({4}, 5, "bias");
  sum(mul(layer_norm(x, {4}, w, b), layer_norm(x, {4}))).backward();
  REQUIRE(w.has_grad());
  REQUIRE(b.has_grad());
  REQUIRE_GRADCHECK([&x](const std::vector<Tensor>& in) { return layer_norm(x, {4}, in[0], in[1]); },
                    (std::vector<Tensor>{w, b}));
}
