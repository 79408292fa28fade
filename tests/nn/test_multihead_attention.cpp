// nn::MultiheadAttention (LLaMA-style: q_proj, k_proj, v_proj, o_proj, GQA/MQA, RoPE) and nn::KVCache:
// names and shapes, a head-by-head reference (which kv head each query head reads, RoPE on q and k
// only), gradchecks, PyTorch parity (Hugging Face's LlamaAttention), the cache against the full
// forward, bad input.
#include <algorithm>
#include <cmath>
#include <memory>

#include <xtensor/xview.hpp>

#include "nn/nn_common.hpp"
#include "parity/parity_fixture.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

namespace {

MultiheadAttentionOptions make_options(std::size_t kv_heads, std::optional<RopeStyle> rope, bool causal = true,
                                       bool bias = true) {
  MultiheadAttentionOptions o;
  o.num_kv_heads = kv_heads;
  o.rope = rope;
  o.causal = causal;
  o.bias = bias;
  o.rope_base = 100.0;  // small base: the later pairs turn visibly over a few positions
  return o;
}

// Biases away from nn.Linear's small uniform init, so that a misplaced bias would show.
void randomize_biases(MultiheadAttention& m, std::uint64_t seed) {
  for (auto* lin : {m.q_proj.get(), m.k_proj.get(), m.v_proj.get(), m.o_proj.get()})
    if (lin->bias.defined()) lin->bias.mutable_value() = randn(lin->bias.shape(), seed++);
}

// Rows [first, first + n) of a projection: one head's slice of it.
Tensor project(const Linear& lin, const Tensor& x, std::size_t first, std::size_t n) {
  const Tensor w = narrow(lin.weight, 0, first, n);
  return lin.bias.defined() ? linear(x, w, narrow(lin.bias, 0, first, n)) : linear(x, w);
}

// What the module must compute, one query head at a time: head h reads kv head h / (H / Hkv); RoPE
// on that head's q and k (positions offset ..), never on v; the composed attention; heads side by side.
Array head_by_head(const MultiheadAttention& m, const Tensor& x, std::int64_t offset = 0) {
  no_grad guard;
  const std::size_t dh = m.head_dim, group = m.num_heads / m.num_kv_heads, S = x.shape()[1];
  const auto positions = position_range(offset, S);
  Array merged = Array::from_shape({x.shape()[0], S, m.d});
  for (std::size_t h = 0; h < m.num_heads; ++h) {
    const std::size_t g = h / group;
    Tensor q = project(*m.q_proj, x, h * dh, dh), k = project(*m.k_proj, x, g * dh, dh);
    const Tensor v = project(*m.v_proj, x, g * dh, dh);
    if (m.options.rope) {
      q = rotary_embedding(q, positions, m.options.rope_base, *m.options.rope);
      k = rotary_embedding(k, positions, m.options.rope_base, *m.options.rope);
    }
    const Tensor y = composed::scaled_dot_product_attention(q, k, v, AttentionMask{}, m.options.causal);
    xt::view(merged, xt::all(), xt::all(), xt::range(h * dh, (h + 1) * dh)) = y.value();
  }
  const Linear& o = *m.o_proj;
  return (o.bias.defined() ? linear(Tensor(merged), o.weight, o.bias) : linear(Tensor(merged), o.weight)).value();
}

struct Config {
  const char* name;
  std::size_t kv_heads;
  std::optional<RopeStyle> rope;
};
const Config configs[] = {{"MHA", 0, std::nullopt},
                          {"MHA + RoPE half_split", 0, RopeStyle::half_split},
                          {"GQA + RoPE half_split", 2, RopeStyle::half_split},
                          {"GQA + RoPE interleaved", 2, RopeStyle::interleaved},
                          {"MQA + RoPE interleaved", 1, RopeStyle::interleaved}};

// A causal module of width d for one config, its biases randomized (seed) so that a misplaced one shows.
std::unique_ptr<MultiheadAttention> build(const Config& c, std::size_t d, std::uint64_t seed) {
  Generator gen(seed);
  auto m = std::make_unique<MultiheadAttention>(d, 4, make_options(c.kv_heads, c.rope), gen);
  randomize_biases(*m, seed + 100);
  return m;
}

}  // namespace

TEST_CASE("MultiheadAttention: Hugging Face LlamaAttention's names and shapes", "[nn][mha]") {
  Generator gen(1);
  MultiheadAttention gqa(16, 4, make_options(2, RopeStyle::half_split, true, false), gen);
  CHECK(names(gqa.named_parameters()) ==
        std::vector<std::string>{"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"});
  CHECK(gqa.q_proj->weight.shape() == Shape{16, 16});
  CHECK(gqa.k_proj->weight.shape() == Shape{8, 16});  // 2 kv heads of head_dim 4
  CHECK(gqa.v_proj->weight.shape() == Shape{8, 16});
  CHECK(gqa.o_proj->weight.shape() == Shape{16, 16});
  CHECK(gqa.head_dim == 4);
  CHECK(gqa.num_kv_heads == 2);
  CHECK_THAT(gqa.to_string(), Catch::Contains("MultiheadAttention(d=16, num_heads=4, num_kv_heads=2, bias=false, "
                                              "causal=true, rope=half_split"));
  MultiheadAttention mha(16, 4, make_options(0, std::nullopt), gen);
  CHECK(mha.num_kv_heads == 4);  // 0 means num_heads
  CHECK(names(mha.named_parameters()).size() == 8);  // with biases
  CHECK(mha.k_proj->bias.shape() == Shape{16});
}

TEST_CASE("MultiheadAttention: equals a head-by-head computation (query head h reads kv head h / group)",
          "[nn][mha]") {
  for (const Config& c : configs)
    for (bool causal : {true, false}) {
      INFO(c.name << (causal ? ", causal" : ", not causal"));
      Generator gen(7);
      MultiheadAttention m(16, 4, make_options(c.kv_heads, c.rope, causal), gen);
      randomize_biases(m, 30);
      const Tensor x(randn({2, 5, 16}, 8));
      no_grad guard;
      CHECK(allclose(m(x).value(), head_by_head(m, x), 1e-12, 1e-12));
    }
}

TEST_CASE("MultiheadAttention: gradcheck of the input and every parameter (MHA, GQA, MQA, both RoPE styles)",
          "[nn][mha][gradcheck]") {
  for (const Config& c : configs) {
    INFO(c.name);
    require_module_gradcheck(*build(c, 8, 3), Tensor(randn({2, 3, 8}, 9), true, "x"));
  }
}

TEST_CASE("MultiheadAttention: an attention mask (key padding) combines with causal", "[nn][mha]") {
  Generator gen(5);
  MultiheadAttention m(16, 4, make_options(2, RopeStyle::half_split), gen);
  const Tensor x(randn({2, 4, 16}, 6));
  no_grad guard;
  // Sequence 0 has 4 real tokens, sequence 1 has 2: batch 1's first two positions cannot see the padding
  // anyway (causal), so their outputs equal the unpadded forward of those 2 tokens.
  const Array y = m.forward(x, AttentionMask::boolean(padding_mask({4, 2}, 4))).value();
  const Array full = m(x).value();
  CHECK(allclose(Array(xt::view(y, 0)), Array(xt::view(full, 0)), 1e-12, 1e-12));
  const Array short_rows = m(Tensor(Array(xt::view(x.value(), xt::range(1, 2), xt::range(0, 2), xt::all())))).value();
  CHECK(allclose(Array(xt::view(y, xt::range(1, 2), xt::range(0, 2), xt::all())), short_rows, 1e-12, 1e-12));
}

TEST_CASE("MultiheadAttention: PyTorch parity with Hugging Face's LlamaAttention (GQA, MQA, both RoPE styles)",
          "[nn][mha][parity]") {
  for (const char* name : {"mha_gqa_half_split", "mha_mqa_interleaved"}) {
    INFO("fixture " << name);
    parity::Fixture f(name, "llm");
    const Array config = f.load("config");  // num_heads, num_kv_heads, bias, style, base
    MultiheadAttentionOptions o;
    o.num_kv_heads = static_cast<std::size_t>(config(1));
    o.bias = config(2) != 0.0;
    o.rope = config(3) == 0.0 ? RopeStyle::half_split : RopeStyle::interleaved;
    o.rope_base = config(4);
    o.causal = true;
    const Array x_value = f.load("x");
    MultiheadAttention m(x_value.shape()[2], static_cast<std::size_t>(config(0)), o);
    const auto params = m.named_parameters();
    std::vector<std::string> param_names = names(params);
    std::sort(param_names.begin(), param_names.end());  // keys() comes sorted
    REQUIRE(param_names == f.keys("param."));
    for (const auto& [pname, p] : params) {
      Tensor t = p;
      t.mutable_value() = f.load("param." + pname);
    }
    Tensor x(x_value, true, "x");
    const Tensor y = m(x);
    parity::check_close("y", y.value(), f.load("y"), 1e-9, 1e-12);
    sum(mul(y, Tensor(f.load("dy")))).backward();
    parity::check_close("dx", x.grad(), f.load("dx"), 1e-9, 1e-12);
    for (const auto& [pname, p] : params) parity::check_close("grad of " + pname, p.grad(), f.load("grad." + pname), 1e-9, 1e-12);
  }
}

TEST_CASE("MultiheadAttention with a KVCache: a prefill then one token at a time equals the full forward",
          "[nn][mha][kv_cache]") {
  for (const Config& c : configs) {
    INFO(c.name);
    const auto module = build(c, 16, 12);  // owns the module for the whole loop body
    MultiheadAttention& m = *module;
    const Array x = randn({2, 6, 16}, 13);
    no_grad guard;
    const Array full = m(Tensor(x)).value();
    KVCache cache;
    const Array prefill = m.forward(Tensor(Array(xt::view(x, xt::all(), xt::range(0, 3), xt::all()))), &cache).value();
    CHECK(cache.length() == 3);
    // The cache holds the kv heads un-repeated: (B, Hkv, T, Dh), the keys after RoPE at their absolute
    // positions 0, 1, 2. (A constant shift of every position would leave the outputs unchanged, RoPE being
    // relative, so only the cached keys show it.)
    CHECK(shape_str(cache.keys().shape()) == shape_str(Shape{2, m.num_kv_heads, 3, 4}));
    const Tensor x_prefill(Array(xt::view(x, xt::all(), xt::range(0, 3), xt::all())));
    for (std::size_t g = 0; g < m.num_kv_heads; ++g) {
      Tensor k = project(*m.k_proj, x_prefill, g * 4, 4), v = project(*m.v_proj, x_prefill, g * 4, 4);
      if (c.rope) k = rotary_embedding(k, position_range(0, 3), m.options.rope_base, *c.rope);
      CHECK(allclose(Array(xt::view(cache.keys(), xt::all(), g)), k.value(), 1e-12, 1e-12));
      CHECK(allclose(Array(xt::view(cache.values(), xt::all(), g)), v.value(), 1e-12, 1e-12));
    }
    CHECK(allclose(prefill, Array(xt::view(full, xt::all(), xt::range(0, 3), xt::all())), 1e-12, 1e-12));
    for (std::size_t t = 3; t < 6; ++t) {
      INFO("decode step at position " << t);
      const Array step = m.forward(Tensor(Array(xt::view(x, xt::all(), xt::range(t, t + 1), xt::all()))), &cache).value();
      CHECK(allclose(step, Array(xt::view(full, xt::all(), xt::range(t, t + 1), xt::all())), 1e-12, 1e-12));
      CHECK(cache.length() == t + 1);
    }
    cache.reset();
    CHECK(cache.length() == 0);
    CHECK(cache.empty());
  }
}

TEST_CASE("MultiheadAttention and KVCache: bad input names the module, the shapes and what was expected",
          "[nn][mha][errors]") {
  REQUIRE_THROWS_WITH(MultiheadAttention(10, 4), Catch::Contains("MultiheadAttention") && Catch::Contains("d = 10") &&
                                                     Catch::Contains("multiple of num_heads = 4"));
  REQUIRE_THROWS_WITH(MultiheadAttention(16, 4, make_options(3, std::nullopt)),
                      Catch::Contains("MultiheadAttention") && Catch::Contains("num_heads = 4") &&
                          Catch::Contains("multiple of num_kv_heads = 3"));
  REQUIRE_THROWS_WITH(MultiheadAttention(12, 4, make_options(0, RopeStyle::half_split)),
                      Catch::Contains("MultiheadAttention") && Catch::Contains("even head_dim") &&
                          Catch::Contains("12 / 4 = 3"));
  MultiheadAttentionOptions bad_base = make_options(0, RopeStyle::half_split);
  bad_base.rope_base = -1.0;
  REQUIRE_THROWS_WITH(MultiheadAttention(16, 4, bad_base),
                      Catch::Contains("MultiheadAttention: invalid rope_base=-1 (expected a finite number > 0"));
  MultiheadAttention m(16, 4, make_options(2, RopeStyle::half_split));
  REQUIRE_THROWS_WITH(m(Tensor(randn({2, 5, 8}, 1))), Catch::Contains("MultiheadAttention") &&
                                                           Catch::Contains("(B, S, d) with d = 16") &&
                                                           Catch::Contains("(2, 5, 8)"));
  KVCache cache;
  REQUIRE_THROWS_WITH(m.forward(Tensor(randn({1, 2, 16}, 1)), &cache),
                      Catch::Contains("MultiheadAttention") && Catch::Contains("inference") && Catch::Contains("no_grad"));
  {
    no_grad guard;
    m.forward(Tensor(randn({1, 2, 16}, 1)), &cache);
    // The same cache with another batch size.
    REQUIRE_THROWS_WITH(m.forward(Tensor(randn({3, 1, 16}, 1)), &cache),
                        Catch::Contains("KVCache::append") && Catch::Contains("(1, 2, 2, 4)") &&
                            Catch::Contains("(3, 2, 1, 4)"));
  }
  REQUIRE_THROWS_WITH(cache.append(randn({1, 2, 1, 4}, 1), randn({1, 2, 2, 4}, 1)),
                      Catch::Contains("KVCache::append") && Catch::Contains("same shape"));
}
