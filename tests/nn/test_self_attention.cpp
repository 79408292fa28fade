// nn::SelfAttention: PyTorch's names and init, the heads laid out as MultiheadAttention's (checked
// against a head-by-head computation), gradchecks of the input and every parameter, causality, errors.
#include <cmath>

#include <xtensor/xview.hpp>

#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

namespace {

// Biases away from PyTorch's zeros, so that a misplaced bias would show.
void randomize_biases(SelfAttention& m, std::uint64_t seed) {
  m.in_proj_bias.mutable_value() = randn(m.in_proj_bias.shape(), seed);
  m.out_proj->bias.mutable_value() = randn(m.out_proj->bias.shape(), seed + 1);
}

// What the module must compute, one head at a time from rows of the packed weight:
// head h uses rows [h·Dh, (h+1)·Dh) of W_q (part 0), W_k (part 1) and W_v (part 2); the
// heads' outputs sit side by side in the features before out_proj.
Array head_by_head(const SelfAttention& m, const Tensor& x) {
  no_grad guard;
  const std::size_t d = m.d, dh = m.head_dim;
  Array merged = Array::from_shape({x.shape()[0], x.shape()[1], d});
  for (std::size_t h = 0; h < m.heads; ++h) {
    const auto project = [&](std::size_t part) {
      const std::size_t first = part * d + h * dh;
      return linear(x, narrow(m.in_proj_weight, 0, first, dh), narrow(m.in_proj_bias, 0, first, dh));
    };
    const Tensor y = composed::scaled_dot_product_attention(project(0), project(1), project(2), m.causal);
    xt::view(merged, xt::all(), xt::all(), xt::range(h * dh, (h + 1) * dh)) = y.value();
  }
  return linear(Tensor(merged), m.out_proj->weight, m.out_proj->bias).value();
}

}  // namespace

TEST_CASE("SelfAttention: MultiheadAttention's parameter names, shapes and init", "[nn][attention]") {
  Generator gen(1);
  SelfAttention m(16, 4, false, gen);
  CHECK(names(m.named_parameters()) ==
        std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  CHECK(m.in_proj_weight.shape() == Shape{48, 16});
  CHECK(m.in_proj_bias.shape() == Shape{48});
  CHECK(m.out_proj->weight.shape() == Shape{16, 16});
  CHECK(m.head_dim == 4);
  // xavier_uniform_ on the packed (3d, d) weight: fan_in d, fan_out 3d.
  const double xavier = std::sqrt(6.0 / (16.0 + 48.0));
  CHECK(xt::amax(xt::abs(m.in_proj_weight.value()))() <= xavier);
  CHECK(xt::amax(xt::abs(m.in_proj_weight.value()))() > 0.9 * xavier);
  CHECK(m.in_proj_bias.value() == xt::zeros<double>({48}));
  CHECK(m.out_proj->bias.value() == xt::zeros<double>({16}));
  // out_proj.weight keeps nn.Linear's init, drawn first (as PyTorch builds out_proj before _reset_parameters).
  Generator same(1);
  Linear first(16, 16, true, same);
  CHECK(m.out_proj->weight.value() == first.weight.value());
  CHECK_THAT(m.to_string(), Catch::Contains("SelfAttention(d=16, heads=4, causal=false"));
}

TEST_CASE("SelfAttention: equals the head-by-head computation, for 1, 2 and 4 heads, causal or not", "[nn][attention]") {
  for (const std::size_t heads : {1, 2, 4}) {
    for (const bool causal : {false, true}) {
      INFO("heads " << heads << ", causal " << causal);
      Generator gen(2);
      SelfAttention m(8, heads, causal, gen);
      randomize_biases(m, 3);
      const Tensor x(randn({2, 5, 8}, 4));
      CHECK(allclose(m(x).value(), head_by_head(m, x), 1e-12, 1e-12));
    }
  }
}

TEST_CASE("SelfAttention: gradcheck of the input and every parameter", "[nn][attention][gradcheck]") {
  for (const bool causal : {false, true}) {
    INFO("causal " << causal);
    Generator gen(5);
    SelfAttention m(4, 2, causal, gen);
    randomize_biases(m, 6);
    require_module_gradcheck(m, param({2, 3, 4}, 7, "x"));
  }
}

TEST_CASE("SelfAttention: causal, an output does not depend on later positions", "[nn][attention]") {
  for (const bool causal : {false, true}) {
    Generator gen(8);
    SelfAttention m(4, 2, causal, gen);
    Tensor x = param({1, 3, 4}, 9, "x");
    Array dy = xt::zeros<double>({1, 3, 4});
    xt::view(dy, 0, 0, xt::all()) = 1.0;  // the first position's output only
    m(x).backward(dy);
    const double later = xt::amax(xt::abs(xt::view(x.grad(), 0, xt::range(1, 3), xt::all())))();
    INFO("causal " << causal << ": |d y[0] / d x[1:]| = " << later);
    CHECK((causal ? later == 0.0 : later > 1e-3));
  }
}

TEST_CASE("SelfAttention: bad sizes and inputs are clear errors", "[nn][attention][errors]") {
  CHECK_THAT(message_of([] { SelfAttention(6, 4); }),
             Catch::Contains("SelfAttention: embed dim d = 6 must be a positive multiple of heads = 4"));
  CHECK_THAT(message_of([] { SelfAttention(6, 0); }), Catch::Contains("heads = 0"));
  SelfAttention m(4, 2);
  CHECK_THAT(message_of([&] { m(param({3, 4}, 10, "x")); }),
             Catch::Contains("SelfAttention: expected x of shape (B, S, d) with d = 4 (batch first), got 'x' (3, 4)"));
  CHECK_THAT(message_of([&] { m(param({2, 3, 5}, 11, "x")); }), Catch::Contains("got 'x' (2, 3, 5)"));
}
