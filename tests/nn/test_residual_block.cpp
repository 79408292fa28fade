// ResidualBlock in every placement: shape, what it computes, gradcheck of input and every parameter.
#include "helpers.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using tapegrad::testing::allclose;
using tapegrad::testing::param;

TEST_CASE("ResidualBlock: every placement keeps the shape and passes gradcheck (2-D and 3-D)", "[nn][residual_block][gradcheck]") {
  for (Placement p : all_placements()) {
    DYNAMIC_SECTION("placement " << nn::to_string(p)) {
      Generator gen(7);
      ResidualBlockOptions opts;
      if (p == Placement::deepnorm) opts.deepnorm_alpha = deepnorm_constants(4).alpha, opts.deepnorm_beta = deepnorm_constants(4).beta;
      ResidualBlock block(std::make_shared<FFN>(4, 8, "relu", gen), p, 4, opts);
      if (p == Placement::rezero) block.alpha.mutable_value() = Array{0.3};  // exercise the F path
      for (auto& [name, t] : block.named_parameters())  // non-trivial γ, β
        if (name.find("norm") != std::string::npos) t.mutable_value() = tapegrad::testing::randn(t.shape(), 5) * 0.5 + 1.0;
      for (Shape shape : {Shape{3, 4}, Shape{2, 3, 4}}) {
        Tensor x = param(shape, 1, "x");
        CHECK(block(x).shape() == shape);
        std::vector<Tensor> inputs{x};
        for (auto& t : block.parameters()) inputs.push_back(t);
        REQUIRE_GRADCHECK([&block](auto& in) { return block(in[0]); }, inputs);
      }
      tape().clear();
    }
  }
}

TEST_CASE("ResidualBlock computes what its placement says", "[nn][residual_block]") {
  Generator gen(8);
  auto ffn = std::make_shared<FFN>(4, 8, "relu", gen);
  Tensor x = param({3, 4}, 2, "x");
  no_grad guard;
  Tensor fx = (*ffn)(x);
  auto ln = [](const Tensor& t) { return layer_norm(t, {4}); };
  SECTION("post = LN(x + F(x)), i.e. Add & Norm") {
    ResidualBlock b(ffn, Placement::post, 4);
    REQUIRE(allclose(b(x).value(), add_and_norm(x, fx).value()));
  }
  SECTION("pre = x + F(LN(x))") {
    ResidualBlock b(ffn, Placement::pre, 4);
    REQUIRE(allclose(b(x).value(), (x + (*ffn)(ln(x))).value()));
  }
  SECTION("rezero starts as the identity") {
    ResidualBlock b(ffn, Placement::rezero, 4);
    REQUIRE(b(x).value() == x.value());
  }
  SECTION("sandwich = x + LN(F(LN(x)))") {
    ResidualBlock b(ffn, Placement::sandwich, 4);
    REQUIRE(allclose(b(x).value(), (x + ln((*ffn)(ln(x)))).value()));
  }
  SECTION("none = x + F(x)") {
    ResidualBlock b(ffn, Placement::none, 4);
    REQUIRE(allclose(b(x).value(), (x + fx).value()));
  }
}

TEST_CASE("DeepNorm: α, β from the number of blocks - β scales the sublayer's weights at init", "[nn][residual_block]") {
  auto c = deepnorm_constants(6);
  CHECK(c.alpha == Approx(std::pow(12.0, 0.25)));
  CHECK(c.beta == Approx(std::pow(48.0, -0.25)));
  Generator g1(9), g2(9);
  auto plain = std::make_shared<FFN>(4, 8, "relu", g1);
  auto scaled = std::make_shared<FFN>(4, 8, "relu", g2);
  ResidualBlock b(scaled, Placement::deepnorm, 4, {1e-5, c.alpha, c.beta});
  CHECK(allclose(scaled->fc1->weight.value(), plain->fc1->weight.value() * c.beta));
  CHECK(allclose(scaled->fc2->weight.value(), plain->fc2->weight.value() * c.beta));
  CHECK(scaled->fc1->bias.value() == plain->fc1->bias.value());
  Tensor x = param({3, 4}, 3, "x");
  no_grad guard;
  REQUIRE(allclose(b(x).value(), layer_norm(x * c.alpha + (*scaled)(x), {4}).value()));
}

TEST_CASE("placements parse from names - unknown names list the valid ones", "[nn][residual_block][errors]") {
  for (Placement p : all_placements()) CHECK(parse_placement(nn::to_string(p)) == p);
  REQUIRE_THROWS_WITH(parse_placement("postnorm"), Catch::Contains("postnorm") && Catch::Contains("post, pre, deepnorm"));
  CHECK(needs_final_norm(Placement::pre));
  CHECK(needs_final_norm(Placement::sandwich));
  CHECK_FALSE(needs_final_norm(Placement::post));
  REQUIRE_THROWS_WITH(ResidualBlock(nullptr, Placement::pre, 4), Catch::Contains("null"));
}

TEST_CASE("ResidualBlock with dropout: F(x) dropped before the residual in training, the identity in eval", "[nn][residual_block][dropout]") {
  Generator gen(9);
  auto ffn = std::make_shared<FFN>(4, 8, "relu", gen);
  Tensor x = param({3, 4}, 3, "x");
  auto ln = [](const Tensor& t) { return layer_norm(t, {4}); };
  Generator masks(11);
  ResidualBlockOptions opts;
  opts.dropout = 0.25;
  opts.dropout_generator = &masks;
  ResidualBlock block(ffn, Placement::pre, 4, opts);
  ResidualBlock plain(ffn, Placement::pre, 4);
  {
    no_grad guard;
    // Training: x + mask ⊙ F(LN(x)), the mask drawn from the block's generator (1/(1-p) where kept).
    Generator same(11);
    const Array mask = dropout_scaled_mask({3, 4}, 0.25, same);
    const Array expected = x.value() + mask * (*ffn)(ln(x)).value();
    CHECK(allclose(block(x).value(), expected, 0.0, 0.0));
    block.eval();
    CHECK(block(x).value() == plain(x).value());
    block.train();
  }
  // Gradcheck with one mask for every evaluation: the generator restarted before each forward.
  std::vector<Tensor> inputs{x};
  for (auto& t : block.parameters()) inputs.push_back(t);
  REQUIRE_GRADCHECK(
      [&](auto& in) {
        masks.manual_seed(11);
        return block(in[0]);
      },
      inputs);
  tape().clear();
  ResidualBlockOptions bad;
  bad.dropout = 1.5;
  CHECK_THROWS_WITH(ResidualBlock(ffn, Placement::pre, 4, bad), Catch::Contains("Dropout") && Catch::Contains("p"));
}
