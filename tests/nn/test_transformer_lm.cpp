// TransformerBlock's LLaMA options (MultiheadAttention child, RMSNorm, SwiGLU) and nn::TransformerLM:
// names, gradcheck of a LLaMA block, the KV cache against the full causal forward (MHA, GQA, both
// RoPE styles, learned positions, Pre-RMSNorm + SwiGLU), generate() with and without the cache, errors.
#include <algorithm>

#include <xtensor/xview.hpp>

#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

namespace {

// A LLaMA-shaped block: GQA, RoPE, Pre-RMSNorm, SwiGLU.
TransformerBlockOptions llama_block(std::size_t kv_heads, std::optional<RopeStyle> rope) {
  TransformerBlockOptions o;
  o.num_kv_heads = kv_heads;
  o.rope = rope;
  o.rope_base = 100.0;
  o.residual.norm = "rms";
  o.activation = "swiglu";
  o.hidden = 12;
  o.causal = true;
  return o;
}

struct LMConfig {
  const char* name;
  Placement placement;
  TransformerBlockOptions block;
};

std::vector<LMConfig> lm_configs() {
  TransformerBlockOptions mha_rope;  // MHA with RoPE, Pre-LayerNorm, ReLU
  mha_rope.rope = RopeStyle::half_split;
  mha_rope.hidden = 16;
  TransformerBlockOptions gqa_interleaved = mha_rope;  // GQA with Meta's RoPE
  gqa_interleaved.num_kv_heads = 2;
  gqa_interleaved.rope = RopeStyle::interleaved;
  TransformerBlockOptions learned = mha_rope;  // GPT-2 style: learned positions, separate projections
  learned.rope = std::nullopt;
  learned.separate_qkv = true;
  learned.attention_bias = true;
  return {{"MHA + RoPE half_split, Pre-LN", Placement::pre, mha_rope},
          {"GQA + RoPE interleaved, Post-LN", Placement::post, gqa_interleaved},
          {"MHA, learned positions, Pre-LN", Placement::pre, learned},
          {"GQA + RoPE half_split, Pre-RMSNorm + SwiGLU", Placement::pre, llama_block(2, RopeStyle::half_split)},
          {"MQA + RoPE interleaved, Pre-RMSNorm + SwiGLU", Placement::pre, llama_block(1, RopeStyle::interleaved)}};
}

TransformerLMOptions lm_options(const LMConfig& c) {
  TransformerLMOptions o;
  o.vocab_size = 11;
  o.d = 16;
  o.heads = 4;
  o.num_layers = 2;
  o.max_positions = 16;
  o.placement = c.placement;
  o.block = c.block;
  return o;
}

Tensor tokens_of(const std::vector<std::vector<double>>& rows) {
  Array a = Array::from_shape({rows.size(), rows[0].size()});
  for (std::size_t b = 0; b < rows.size(); ++b)
    for (std::size_t s = 0; s < rows[b].size(); ++s) a(b, s) = rows[b][s];
  return Tensor(a);
}

Array columns(const Array& a, std::size_t first, std::size_t n) {
  return xt::view(a, xt::all(), xt::range(first, first + n), xt::all());
}

}  // namespace

TEST_CASE("TransformerBlock: default options keep SelfAttention, LLaMA options switch to MultiheadAttention",
          "[nn][transformer][mha]") {
  Generator gen(1);
  TransformerBlock gpt(8, 2, Placement::pre, {}, gen);
  CHECK(gpt.attention != nullptr);
  CHECK(gpt.multihead_attention == nullptr);
  CHECK(names(gpt.named_parameters())[0] == "attn.self_attn.in_proj_weight");

  TransformerBlock llama(8, 2, Placement::pre, llama_block(1, RopeStyle::half_split), gen);
  CHECK(llama.attention == nullptr);
  REQUIRE(llama.multihead_attention != nullptr);
  CHECK(llama.multihead_attention->num_kv_heads == 1);
  CHECK(names(llama.named_parameters()) ==
        std::vector<std::string>{"attn.self_attn.q_proj.weight", "attn.self_attn.k_proj.weight",
                                 "attn.self_attn.v_proj.weight", "attn.self_attn.o_proj.weight", "attn.norm.weight",
                                 "ffn.ffn.gate_proj.weight", "ffn.ffn.up_proj.weight", "ffn.ffn.down_proj.weight",
                                 "ffn.norm.weight"});
  TransformerBlockOptions separate;
  separate.separate_qkv = true;
  separate.attention_bias = true;
  TransformerBlock sep(8, 2, Placement::post, separate, gen);
  REQUIRE(sep.multihead_attention != nullptr);
  CHECK(sep.multihead_attention->q_proj->bias.defined());
  CHECK(sep.multihead_attention->num_kv_heads == 2);
}

TEST_CASE("TransformerBlock: DeepNet's β scales v_proj and o_proj, not q_proj and k_proj", "[nn][transformer][mha]") {
  TransformerBlockOptions o = llama_block(2, RopeStyle::half_split);
  o.residual.deepnorm_beta = 0.5;
  Generator a(4), b(4);
  TransformerBlock plain(8, 4, Placement::pre, o, a), deep(8, 4, Placement::deepnorm, o, b);
  const MultiheadAttention &p = *plain.multihead_attention, &q = *deep.multihead_attention;
  CHECK(q.q_proj->weight.value() == p.q_proj->weight.value());
  CHECK(q.k_proj->weight.value() == p.k_proj->weight.value());
  CHECK(allclose(q.v_proj->weight.value(), 0.5 * p.v_proj->weight.value()));
  CHECK(allclose(q.o_proj->weight.value(), 0.5 * p.o_proj->weight.value()));
}

TEST_CASE("TransformerBlock: a LLaMA block (GQA, RoPE, Pre-RMSNorm, SwiGLU) passes gradcheck",
          "[nn][transformer][mha][gradcheck]") {
  for (RopeStyle style : {RopeStyle::half_split, RopeStyle::interleaved}) {
    Generator gen(2);
    TransformerBlock block(8, 4, Placement::pre, llama_block(2, style), gen);
    require_module_gradcheck(block, Tensor(randn({2, 3, 8}, 5), true, "x"));
  }
}

TEST_CASE("TransformerLM: names, shapes, and the final norm only where the placement needs it", "[nn][lm]") {
  const auto configs = lm_configs();
  Generator gen(3);
  TransformerLM llama(lm_options(configs[3]), gen);
  const auto keys = names(llama.state_dict());
  CHECK(keys.front() == "embed_tokens.weight");
  CHECK(keys.back() == "lm_head.weight");
  CHECK(std::find(keys.begin(), keys.end(), "norm.weight") != keys.end());
  CHECK(std::find(keys.begin(), keys.end(), "layers.1.attn.self_attn.k_proj.weight") != keys.end());
  CHECK(llama.embed_positions == nullptr);  // RoPE: no learned positions
  CHECK_FALSE(llama.lm_head->bias.defined());
  const Tensor logits = llama(tokens_of({{1, 2, 3}, {4, 5, 6}}));
  CHECK(logits.shape() == Shape{2, 3, 11});

  TransformerLM post(lm_options(configs[1]), gen);
  CHECK(post.norm == nullptr);
  TransformerLM learned(lm_options(configs[2]), gen);
  REQUIRE(learned.embed_positions != nullptr);
  CHECK(learned.embed_positions->weight.shape() == Shape{16, 16});
}

TEST_CASE("TransformerLM: equals its pieces (token rows + position rows 0 .. S − 1, the layers, norm, lm_head)",
          "[nn][lm]") {
  for (const LMConfig& c : lm_configs()) {
    INFO(c.name);
    Generator gen(17);
    TransformerLM lm(lm_options(c), gen);
    const Tensor tokens = tokens_of({{3, 1, 4, 1}, {5, 9, 2, 6}});
    no_grad guard;
    Array h = Array::from_shape({2, 4, 16});
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t s = 0; s < 4; ++s)
        for (std::size_t j = 0; j < 16; ++j) {
          const auto token = static_cast<std::size_t>(tokens.value()(b, s));
          h(b, s, j) = lm.embed_tokens->weight.value()(token, j);
          if (lm.embed_positions) h(b, s, j) += lm.embed_positions->weight.value()(s, j);  // row s: position s
        }
    Tensor out(h);
    for (auto& layer : lm.layers) out = (*layer)(out);
    if (lm.norm) out = (*lm.norm)(out);
    CHECK(allclose(lm(tokens).value(), (*lm.lm_head)(out).value(), 1e-13, 1e-13));
  }
}

TEST_CASE("TransformerLM: the KV cache gives the full causal forward's logits at every step", "[nn][lm][kv_cache]") {
  for (const LMConfig& c : lm_configs()) {
    INFO(c.name);
    Generator gen(21);
    TransformerLM lm(lm_options(c), gen);
    const Tensor tokens = tokens_of({{3, 1, 4, 1, 5, 9, 2, 6}, {2, 7, 1, 8, 2, 8, 1, 8}});
    no_grad guard;
    const Array full = lm(tokens).value();  // (2, 8, 11)
    auto caches = lm.make_cache();
    const Array prefill = lm.forward(Tensor(Array(xt::view(tokens.value(), xt::all(), xt::range(0, 3)))), caches).value();
    CHECK(allclose(prefill, columns(full, 0, 3), 1e-12, 1e-12));
    for (std::size_t t = 3; t < 8; ++t) {
      INFO("decode step at position " << t);
      const Tensor one(Array(xt::view(tokens.value(), xt::all(), xt::range(t, t + 1))));
      CHECK(allclose(lm.forward(one, caches).value(), columns(full, t, 1), 1e-12, 1e-12));
    }
    for (const KVCache& cache : caches) CHECK(cache.length() == 8);
  }
}

TEST_CASE("TransformerLM: generate with the cache draws the same tokens as without (greedy and sampled)",
          "[nn][lm][kv_cache]") {
  for (const LMConfig& c : lm_configs()) {
    INFO(c.name);
    Generator init(31);
    TransformerLM lm(lm_options(c), init);
    for (double temperature : {0.0, 1.3}) {
      INFO("temperature " << temperature);
      SamplingOptions sampling;
      sampling.temperature = temperature;
      sampling.top_k = temperature > 0 ? 6 : 0;
      Generator with(99), without(99);
      const auto cached = lm.generate({1, 2, 3}, 8, sampling, with, true);
      const auto recomputed = lm.generate({1, 2, 3}, 8, sampling, without, false);
      REQUIRE(cached.size() == 11);
      CHECK(std::vector<std::int64_t>(cached.begin(), cached.begin() + 3) == std::vector<std::int64_t>{1, 2, 3});
      CHECK(cached == recomputed);
    }
  }
}

TEST_CASE("TransformerLM: bad input names the module and what was expected", "[nn][lm][errors]") {
  TransformerLMOptions o = lm_options(lm_configs()[2]);
  o.max_positions = 0;
  REQUIRE_THROWS_WITH(TransformerLM(o), Catch::Contains("TransformerLM") && Catch::Contains("max_positions"));
  o = lm_options(lm_configs()[2]);
  o.max_positions = 4;
  TransformerLM lm(o);
  REQUIRE_THROWS_WITH(lm(tokens_of({{1, 2, 3, 4, 5}})), Catch::Contains("TransformerLM") &&
                                                            Catch::Contains("max_positions = 4") &&
                                                            Catch::Contains("(1, 5)"));
  REQUIRE_THROWS_WITH(lm(Tensor(randn({5}, 1))),
                      Catch::Contains("TransformerLM") && Catch::Contains("(B, S)") && Catch::Contains("(5)"));
  std::vector<KVCache> wrong(1);
  REQUIRE_THROWS_WITH(lm.forward(tokens_of({{1}}), wrong),
                      Catch::Contains("one KVCache per layer (2), got 1") && Catch::Contains("make_cache"));
  Generator gen(1);
  REQUIRE_THROWS_WITH(lm.generate({}, 3, {}, gen), Catch::Contains("generate") && Catch::Contains("prompt is empty"));
  // The packed SelfAttention has no cache path.
  TransformerLMOptions gpt = o;
  gpt.block = {};
  TransformerLM packed(gpt);
  auto caches = packed.make_cache();
  REQUIRE_THROWS_WITH(packed.forward(tokens_of({{1}}), caches),
                      Catch::Contains("TransformerLM") && Catch::Contains("MultiheadAttention"));
  TransformerBlock block(8, 2, Placement::pre);
  KVCache cache;
  REQUIRE_THROWS_WITH(block.forward(Tensor(randn({1, 1, 8}, 1)), &cache),
                      Catch::Contains("TransformerBlock") && Catch::Contains("SelfAttention"));
}
