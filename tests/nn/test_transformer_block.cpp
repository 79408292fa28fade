// nn::TransformerBlock: attention then FFN, both sublayers in the chosen placement; gradchecks of the
// input and every parameter per placement, the formulas, DeepNet's β, causality, errors.
#include <xtensor/xview.hpp>

#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

namespace {

TransformerBlockOptions small_options(Placement p) {
  TransformerBlockOptions o;
  o.hidden = 8;
  if (p == Placement::deepnorm) o.residual.deepnorm_alpha = 1.7, o.residual.deepnorm_beta = 0.6;
  return o;
}

// Non-trivial LayerNorm γ, β, attention biases and ReZero α, so that each one's effect shows.
void randomize(TransformerBlock& b, std::uint64_t seed) {
  for (auto& [name, t] : b.named_parameters()) {
    const bool norm = name.find("norm") != std::string::npos;
    if (norm && name.find("weight") != std::string::npos) t.mutable_value() = 1.0 + 0.5 * randn(t.shape(), seed++);
    if (name.find("bias") != std::string::npos) t.mutable_value() = 0.5 * randn(t.shape(), seed++);
    if (name.find("alpha") != std::string::npos) t.mutable_value() = Array{0.3 + 0.1 * static_cast<double>(seed++ % 3)};
  }
}

}  // namespace

TEST_CASE("TransformerBlock: every placement keeps (B, S, d) and passes gradcheck", "[nn][transformer][gradcheck]") {
  for (Placement p : all_placements()) {
    DYNAMIC_SECTION("placement " << nn::to_string(p)) {
      Generator gen(1);
      TransformerBlock block(4, 2, p, small_options(p), gen);
      randomize(block, 10);
      for (const auto& [name, t] : block.named_parameters()) {
        INFO(name);
        CHECK((name.rfind("attn.", 0) == 0 || name.rfind("ffn.", 0) == 0));
      }
      const Tensor x = param({2, 3, 4}, 2, "x");
      CHECK(block(x).shape() == Shape{2, 3, 4});
      require_module_gradcheck(block, x);
      tape().clear();
    }
  }
}

TEST_CASE("TransformerBlock computes the placement's formula for both sublayers", "[nn][transformer]") {
  const Tensor x(randn({2, 3, 4}, 3));
  const auto build = [](Placement p) {
    Generator gen(4);
    auto b = std::make_shared<TransformerBlock>(4, 2, p, small_options(p), gen);
    randomize(*b, 20);
    return b;
  };
  no_grad guard;
  const auto check = [&](Placement p, const std::function<Tensor(TransformerBlock&)>& formula) {
    auto b = build(p);
    INFO("placement " << nn::to_string(p));
    CHECK(allclose((*b)(x).value(), formula(*b).value(), 1e-13, 1e-13));
  };
  // The pieces: A = attention, F = FFN, LNa / LNf their blocks' norms.
  check(Placement::post, [&](TransformerBlock& b) {
    const Tensor h = (*b.attn->norm)(x + (*b.attention)(x));
    return (*b.ffn->norm)(h + (*b.feed_forward)(h));
  });
  check(Placement::pre, [&](TransformerBlock& b) {
    const Tensor h = x + (*b.attention)((*b.attn->norm)(x));
    return h + (*b.feed_forward)((*b.ffn->norm)(h));
  });
  check(Placement::deepnorm, [&](TransformerBlock& b) {
    const Tensor h = (*b.attn->norm)(1.7 * x + (*b.attention)(x));
    return (*b.ffn->norm)(1.7 * h + (*b.feed_forward)(h));
  });
  check(Placement::rezero, [&](TransformerBlock& b) {
    const Tensor h = x + (*b.attention)(x) * b.attn->alpha;
    return h + (*b.feed_forward)(h) * b.ffn->alpha;
  });
  check(Placement::sandwich, [&](TransformerBlock& b) {
    const Tensor h = x + (*b.attn->norm_out)((*b.attention)((*b.attn->norm)(x)));
    return h + (*b.ffn->norm_out)((*b.feed_forward)((*b.ffn->norm)(h)));
  });
  check(Placement::none, [&](TransformerBlock& b) {
    const Tensor h = x + (*b.attention)(x);
    return h + (*b.feed_forward)(h);
  });
  Generator gen(5);
  TransformerBlock rezero(4, 2, Placement::rezero, small_options(Placement::rezero), gen);
  CHECK(rezero(x).value() == x.value());  // both α start at 0: the identity
}

TEST_CASE("TransformerBlock deepnorm: β scales W_v, W_out and the FFN's weights, not W_q, W_k or biases",
          "[nn][transformer]") {
  const std::size_t d = 4;
  Generator gen(6), same(6);
  TransformerBlock block(d, 2, Placement::deepnorm, small_options(Placement::deepnorm), gen);
  // The same draws without the block: attention first, then the FFN.
  SelfAttention attention(d, 2, false, same);
  FFN ffn(d, 8, "relu", same);
  const auto rows = [](const Tensor& w, std::size_t first, std::size_t n) {
    return Array(xt::view(w.value(), xt::range(first, first + n), xt::all()));
  };
  const Tensor& w = block.attention->in_proj_weight;
  CHECK((rows(w, 0, 2 * d) == rows(attention.in_proj_weight, 0, 2 * d)));  // W_q, W_k as drawn
  CHECK(allclose(rows(w, 2 * d, d), 0.6 * rows(attention.in_proj_weight, 2 * d, d)));
  CHECK(allclose(block.attention->out_proj->weight.value(), 0.6 * attention.out_proj->weight.value()));
  CHECK(allclose(block.feed_forward->fc1->weight.value(), 0.6 * ffn.fc1->weight.value()));
  CHECK(allclose(block.feed_forward->fc2->weight.value(), 0.6 * ffn.fc2->weight.value()));
  CHECK(block.feed_forward->fc1->bias.value() == ffn.fc1->bias.value());
}

TEST_CASE("TransformerBlock: causal reaches the attention, and a position's output ignores later ones", "[nn][transformer]") {
  for (Placement p : {Placement::post, Placement::pre}) {
    INFO("placement " << nn::to_string(p));
    TransformerBlockOptions o = small_options(p);
    o.causal = true;
    Generator gen(7);
    TransformerBlock block(4, 2, p, o, gen);
    CHECK(block.attention->causal);
    Tensor x = param({1, 3, 4}, 8, "x");
    Array dy = xt::zeros<double>({1, 3, 4});
    // Position 1's output, random: a constant dy would give zero through Post-Norm's last LayerNorm.
    xt::view(dy, 0, 1, xt::all()) = randn({4}, 9);
    block(x).backward(dy);
    CHECK((Array(xt::view(x.grad(), 0, 2)) == xt::zeros<double>({4})));
    CHECK(xt::amax(xt::abs(xt::view(x.grad(), 0, 0)))() > 1e-3);
  }
}

TEST_CASE("TransformerBlock: bad sizes and inputs name the layer and the shapes", "[nn][transformer][errors]") {
  CHECK_THAT(message_of([] { TransformerBlock(6, 4, Placement::pre); }),
             Catch::Contains("SelfAttention: embed dim d = 6 must be a positive multiple of heads = 4"));
  TransformerBlockOptions bad;
  bad.activation = "swish";
  CHECK_THAT(message_of([&] { TransformerBlock(4, 2, Placement::pre, bad); }), Catch::Contains("FFN"));
  TransformerBlock block(4, 2, Placement::post);
  CHECK_THAT(message_of([&] { block(param({3, 4}, 9, "x")); }), Catch::Contains("expected x of shape (B, S, d)"));
}
