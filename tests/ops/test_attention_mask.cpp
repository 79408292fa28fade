// scaled_dot_product_attention with attn_mask, is_causal and scale (ops/attention.hpp, ops/attention_mask.hpp):
// masks broadcast from every documented shape against attention written out with loops, boolean = additive
// −∞/0, causal alignment (bottom right for is_causal, top left for causal_mask(top_left) and PyTorch), a fully
// masked row, padding, a custom scale, fused == composed, gradchecks, PyTorch parity and the error messages.
#include <cmath>
#include <limits>

#include <xtensor/xbroadcast.hpp>
#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"
#include "parity/parity_fixture.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// The known answer: attention by the formula with plain loops, the mask already turned into an additive
// bias of the scores' full shape (..., Sq, Sk). A row whose bias is −∞ everywhere is 0 (the documented
// answer for a query that may attend to nothing).
Array attention_by_loops(const Array& q, const Array& k, const Array& v, const Array& bias, double scale) {
  const std::size_t nd = q.dimension(), sq = q.shape()[nd - 2], dh = q.shape()[nd - 1];
  const std::size_t sk = k.shape()[nd - 2], dv = v.shape()[nd - 1], batch = q.size() / (sq * dh);
  Shape y_shape(q.shape().begin(), q.shape().end());
  y_shape.back() = dv;
  Array y = xt::zeros<double>(y_shape);
  std::vector<double> score(sk);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < sq; ++i) {
      double largest = minus_inf;
      for (std::size_t j = 0; j < sk; ++j) {
        double dot = 0.0;
        for (std::size_t d = 0; d < dh; ++d) dot += q.flat((b * sq + i) * dh + d) * k.flat((b * sk + j) * dh + d);
        score[j] = scale * dot + bias.flat((b * sq + i) * sk + j);
        largest = std::max(largest, score[j]);
      }
      if (largest == minus_inf) continue;  // every key masked: the row stays 0
      double total = 0.0;
      for (std::size_t j = 0; j < sk; ++j) total += score[j] = std::exp(score[j] - largest);
      for (std::size_t j = 0; j < sk; ++j)
        for (std::size_t c = 0; c < dv; ++c) y.flat((b * sq + i) * dv + c) += score[j] / total * v.flat((b * sk + j) * dv + c);
    }
  return y;
}

// A boolean mask (1 = may attend) as the additive bias the loops take: 0 where allowed, −∞ where not,
// broadcast to the scores' shape.
Array bias_of_boolean(const Array& allowed, const Shape& scores_shape) {
  Array bias = xt::broadcast(allowed, scores_shape);
  for (double& m : bias) m = m == 1.0 ? 0.0 : minus_inf;
  return bias;
}

Shape scores_shape(const Tensors& in) {
  Shape s = in[0].shape();
  s.back() = in[1].shape()[in[1].dim() - 2];
  return s;
}

// A random 0/1 mask of a shape (about 70% ones).
Array random_allowed(const Shape& shape, std::uint64_t seed) {
  Array allowed = randn(shape, seed);
  for (double& m : allowed) m = m > -0.5 ? 1.0 : 0.0;
  return allowed;
}

// Both masks at once: elementwise AND of two 0/1 arrays that broadcast together.
Array both(const Array& a, const Array& b) { return a * b; }

GradcheckFn fused(const AttentionMask& mask, bool is_causal = false, std::optional<double> scale = std::nullopt) {
  return [=](const Tensors& t) { return scaled_dot_product_attention(t[0], t[1], t[2], mask, is_causal, scale); };
}
GradcheckFn composed_op(const AttentionMask& mask, bool is_causal = false,
                        std::optional<double> scale = std::nullopt) {
  return [=](const Tensors& t) {
    return composed::scaled_dot_product_attention(t[0], t[1], t[2], mask, is_causal, scale);
  };
}

Array value_of(const GradcheckFn& fn, const Tensors& in) {
  no_grad guard;
  return fn(in).value();
}

// Rows [begin, end) of the query axis of a (B, H, S, D) array.
Array query_rows(const Array& a, std::size_t begin, std::size_t end) {
  return xt::view(a, xt::all(), xt::all(), xt::range(begin, end), xt::all());
}

}  // namespace

TEST_CASE("attention mask: boolean and additive masks broadcast from (Sq, Sk), (B, 1, Sq, Sk), (B, H, Sq, Sk), "
          "(B, 1, 1, Sk)",
          "[ops][attention][mask]") {
  const std::size_t B = 2, H = 3, Sq = 4, Sk = 5;
  const Tensors in = attention_inputs({B, H}, Sq, Sk, 3, 2, 100);
  const Shape scores = scores_shape(in);
  const double scale = 1.0 / std::sqrt(3.0);
  const Array unmasked = value_of(fused({}), in);
  std::uint64_t seed = 110;
  for (const Shape& mask_shape : {Shape{Sq, Sk}, Shape{B, 1, Sq, Sk}, Shape{B, H, Sq, Sk}, Shape{B, 1, 1, Sk}}) {
    INFO("mask shape " << shape_str(mask_shape));
    const Array allowed = random_allowed(mask_shape, seed++);
    const Array bias = bias_of_boolean(allowed, scores);
    const Array want = attention_by_loops(in[0].value(), in[1].value(), in[2].value(), bias, scale);
    const Array got = value_of(fused(AttentionMask::boolean(allowed)), in);
    CHECK(allclose(got, want, 1e-13, 1e-14));
    CHECK_FALSE(allclose(got, unmasked, 1e-3, 1e-3));  // the mask changed something
    // The additive mask of 0 and −∞ is the same mask: the same bits.
    Array minus_inf_or_zero = allowed;
    for (double& m : minus_inf_or_zero) m = m == 1.0 ? 0.0 : minus_inf;
    CHECK((value_of(fused(AttentionMask::additive(minus_inf_or_zero)), in) == got));
    // A finite additive mask of the same shape.
    const Array additive = randn(mask_shape, seed++, 2.0);
    const Array bias_added = xt::broadcast(additive, scores);
    CHECK(allclose(value_of(fused(AttentionMask::additive(additive)), in),
                   attention_by_loops(in[0].value(), in[1].value(), in[2].value(), bias_added, scale), 1e-13, 1e-14));
  }
}

TEST_CASE("attention mask: causal_mask values, bottom right and top left", "[ops][attention][mask][causal]") {
  // Sq = 2 queries are the last 2 of Sk = 5 positions: query 0 sits at position 3, query 1 at 4.
  CHECK((causal_mask(2, 5) == matrix({{1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}})));
  CHECK((causal_mask(2, 5, CausalAlignment::top_left) == matrix({{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}})));
  // Sq > Sk bottom right: queries 0 and 1 come before the first key and see nothing.
  CHECK((causal_mask(4, 2) == matrix({{0, 0}, {0, 0}, {1, 0}, {1, 1}})));
  CHECK((causal_mask(4, 2, CausalAlignment::top_left) == matrix({{1, 0}, {1, 1}, {1, 1}, {1, 1}})));
  // Sq == Sk: both are the lower triangle.
  const Array lower = matrix({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}});
  CHECK((causal_mask(3, 3) == lower));
  CHECK((causal_mask(3, 3, CausalAlignment::top_left) == lower));
}

TEST_CASE("attention mask: is_causal is bottom right, the bool overload and causal_mask(top_left) are PyTorch's",
          "[ops][attention][mask][causal]") {
  SECTION("Sq != Sk: is_causal equals the bottom-right boolean mask, and the loops") {
    for (const auto [sq, sk] : {std::pair<std::size_t, std::size_t>{3, 5}, {4, 2}}) {
      INFO("Sq " << sq << ", Sk " << sk);
      const Tensors in = attention_inputs({2, 2}, sq, sk, 4, 3, 200 + sq);
      const Array got = value_of(fused({}, true), in);
      CHECK((got == value_of(fused(AttentionMask::boolean(causal_mask(sq, sk))), in)));
      const Array bias = bias_of_boolean(causal_mask(sq, sk), scores_shape(in));
      CHECK(allclose(got, attention_by_loops(in[0].value(), in[1].value(), in[2].value(), bias, 0.5), 1e-13, 1e-14));
      // The bool overload keeps PyTorch's top-left is_causal.
      const Array top_left = value_of(fused(AttentionMask::boolean(causal_mask(sq, sk, CausalAlignment::top_left))), in);
      CHECK((value_of([](const Tensors& t) { return scaled_dot_product_attention(t[0], t[1], t[2], true); }, in) ==
             top_left));
      CHECK_FALSE(allclose(got, top_left, 1e-3, 1e-3));  // the alignments differ when Sq != Sk
    }
  }
  SECTION("a KV cache: the last Sq queries over all Sk keys are the last rows of causal self-attention") {
    const Tensors full = attention_inputs({2, 3}, 6, 6, 4, 3, 210);
    const Array self_attention = value_of(fused({}, true), full);
    const Tensors last_two{Tensor(query_rows(full[0].value(), 4, 6)), full[1], full[2]};
    CHECK(allclose(value_of(fused({}, true), last_two), query_rows(self_attention, 4, 6), 1e-14, 1e-14));
  }
  SECTION("Sq == Sk: is_causal, both causal masks and the bool overload agree") {
    const Tensors in = attention_inputs({2}, 4, 4, 3, 2, 220);
    const Array got = value_of(fused({}, true), in);
    CHECK(allclose(got, value_of(fused(AttentionMask::boolean(causal_mask(4, 4))), in), 1e-15, 1e-15));
    CHECK(allclose(got, value_of(fused(AttentionMask::boolean(causal_mask(4, 4, CausalAlignment::top_left))), in),
                   1e-15, 1e-15));
    CHECK(allclose(got, value_of([](const Tensors& t) { return scaled_dot_product_attention(t[0], t[1], t[2], true); }, in),
                   1e-15, 1e-15));
  }
  SECTION("is_causal combined with a mask: both apply (their AND)") {
    const std::size_t sq = 3, sk = 5;
    const Tensors in = attention_inputs({2, 2}, sq, sk, 4, 3, 230);
    const Array padding = padding_mask({5, 3}, sk);                         // (2, 1, 1, 5)
    const Array extra = random_allowed({2, 1, sq, sk}, 231);                 // (2, 1, 3, 5)
    for (const Array& allowed : {padding, extra}) {
      const Array want = value_of(fused(AttentionMask::boolean(both(allowed, causal_mask(sq, sk)))), in);
      CHECK((value_of(fused(AttentionMask::boolean(allowed), true), in) == want));
      Array additive = allowed;
      for (double& m : additive) m = m == 1.0 ? 0.0 : minus_inf;
      CHECK((value_of(fused(AttentionMask::additive(additive), true), in) == want));
    }
  }
}

TEST_CASE("attention mask: a fully masked row gives output 0 and no gradient, never NaN", "[ops][attention][mask]") {
  // Query 1 may attend to no key: by a boolean row of 0s, an additive row of −∞, or the causal mask with
  // Sq > Sk (bottom right: queries 0 and 1 come before every key).
  Array no_row_1 = xt::ones<double>({3, 4});
  xt::view(no_row_1, 1, xt::all()) = 0.0;
  Array minus_inf_row_1 = xt::zeros<double>({3, 4});
  xt::view(minus_inf_row_1, 1, xt::all()) = minus_inf;
  struct Case {
    const char* name;
    AttentionMask mask;
    bool is_causal;
    std::size_t sq, sk;
    std::vector<std::size_t> empty_rows;
  };
  for (const Case& c : {Case{"boolean", AttentionMask::boolean(no_row_1), false, 3, 4, {1}},
                        Case{"additive", AttentionMask::additive(minus_inf_row_1), false, 3, 4, {1}},
                        Case{"causal Sq > Sk", {}, true, 4, 2, {0, 1}}}) {
    for (const bool use_composed : {false, true}) {
      INFO(c.name << (use_composed ? ", composed" : ", fused"));
      Tensors in = attention_inputs({2}, c.sq, c.sk, 3, 2, 300);
      const GradcheckFn fn = use_composed ? composed_op(c.mask, c.is_causal) : fused(c.mask, c.is_causal);
      const Tensor y = fn(in);
      sum(mul(y, Tensor(randn(y.shape(), 301)))).backward();
      for (const Array& a : {y.value(), in[0].grad(), in[1].grad(), in[2].grad()}) CHECK(xt::all(xt::isfinite(a)));
      for (const std::size_t row : c.empty_rows) {
        INFO("row " << row);
        CHECK(xt::all(xt::equal(Array(xt::view(y.value(), xt::all(), row, xt::all())), 0.0)));
        CHECK(xt::all(xt::equal(Array(xt::view(in[0].grad(), xt::all(), row, xt::all())), 0.0)));
      }
      for (Tensor& t : in) t.zero_grad();
      REQUIRE_GRADCHECK(fn, in);
    }
  }
}

TEST_CASE("attention mask: padding_mask values, its error, and padding = attention on the truncated sequence",
          "[ops][attention][mask][padding]") {
  const Array mask = padding_mask({3, 1, 4}, 4);
  REQUIRE(Shape(mask.shape().begin(), mask.shape().end()) == (Shape{3, 1, 1, 4}));
  CHECK((Array(xt::view(mask, xt::all(), 0, 0, xt::all())) == matrix({{1, 1, 1, 0}, {1, 0, 0, 0}, {1, 1, 1, 1}})));
  CHECK((padding_mask({0}, 2) == Array(xt::zeros<double>({1, 1, 1, 2}))));

  const std::string message = message_of([] { padding_mask({2, 5}, 4); });
  CHECK_THAT(message, Catch::Contains("padding_mask") && Catch::Contains("length 5 of sequence 1") &&
                          Catch::Contains("S = 4") && Catch::Contains("expected every length <= S"));

  const std::vector<std::size_t> lengths{5, 3};
  const std::size_t S = 5;
  Tensors in = attention_inputs({2, 2}, S, S, 3, 4, 400);
  const Tensor y = scaled_dot_product_attention(in[0], in[1], in[2], AttentionMask::boolean(padding_mask(lengths, S)));
  sum(mul(y, Tensor(randn(y.shape(), 401)))).backward();
  for (std::size_t b = 0; b < lengths.size(); ++b) {
    const std::size_t n = lengths[b];
    INFO("sequence " << b << " of length " << n);
    const auto truncated = [&](const Tensor& t) {
      return Tensor(Array(xt::view(t.value(), xt::range(b, b + 1), xt::all(), xt::range(0, n), xt::all())));
    };
    const Array want = value_of(fused({}), {truncated(in[0]), truncated(in[1]), truncated(in[2])});
    CHECK(allclose(Array(xt::view(y.value(), xt::range(b, b + 1), xt::all(), xt::range(0, n), xt::all())), want,
                   1e-14, 1e-14));
    // The pads pass nothing back: their keys and values get no gradient. (A sequence without pads has none to
    // check: xt::all of an empty view offsets a null pointer in xtensor 0.24.3, which UBSan reports.)
    if (n == S) continue;
    for (std::size_t input : {1, 2})
      CHECK(xt::all(xt::equal(Array(xt::view(in[input].grad(), b, xt::all(), xt::range(n, S), xt::all())), 0.0)));
  }
}

TEST_CASE("attention mask: a custom scale replaces 1/√Dh", "[ops][attention][mask][scale]") {
  const Tensors in = attention_inputs({2}, 3, 4, 4, 2, 500);
  const Array allowed = random_allowed({3, 4}, 501);
  const Array bias = bias_of_boolean(allowed, scores_shape(in));
  for (const double scale : {0.3, 2.0}) {
    INFO("scale " << scale);
    CHECK(allclose(value_of(fused(AttentionMask::boolean(allowed), false, scale), in),
                   attention_by_loops(in[0].value(), in[1].value(), in[2].value(), bias, scale), 1e-13, 1e-14));
    REQUIRE_SAME_OP(fused(AttentionMask::boolean(allowed), true, scale),
                    composed_op(AttentionMask::boolean(allowed), true, scale), in);
  }
  // scale = 1/√Dh is the default (Dh = 4).
  CHECK((value_of(fused({}, false, 0.5), in) == value_of(fused({}), in)));
  CHECK_FALSE(allclose(value_of(fused({}, false, 0.3), in), value_of(fused({}), in), 1e-3, 1e-3));
}

TEST_CASE("attention mask: fused equals composed, values and gradients, for every mask kind",
          "[ops][attention][mask]") {
  const std::size_t B = 2, H = 2, Sq = 3, Sk = 5;
  Tensors in = attention_inputs({B, H}, Sq, Sk, 4, 3, 600);
  for (Tensor& t : in) t.mutable_value() *= 2.0;  // sharper softmaxes
  Array additive_with_minus_inf = randn({B, 1, Sq, Sk}, 601);
  additive_with_minus_inf(0, 0, 1, 2) = additive_with_minus_inf(1, 0, 2, 0) = minus_inf;
  Array one_empty_row = random_allowed({Sq, Sk}, 602);
  xt::view(one_empty_row, 2, xt::all()) = 0.0;
  struct Case {
    const char* name;
    AttentionMask mask;
    bool is_causal;
  };
  for (const Case& c : {Case{"no mask", {}, false},
                        Case{"boolean (Sq, Sk)", AttentionMask::boolean(random_allowed({Sq, Sk}, 603)), false},
                        Case{"boolean (B, H, Sq, Sk)", AttentionMask::boolean(random_allowed({B, H, Sq, Sk}, 604)), false},
                        Case{"boolean with an empty row", AttentionMask::boolean(one_empty_row), false},
                        Case{"additive (B, 1, Sq, Sk) with −∞", AttentionMask::additive(additive_with_minus_inf), false},
                        Case{"additive finite (Sq, Sk)", AttentionMask::additive(randn({Sq, Sk}, 605)), false},
                        Case{"padding (B, 1, 1, Sk)", AttentionMask::boolean(padding_mask({5, 2}, Sk)), false},
                        Case{"is_causal, Sq != Sk", {}, true},
                        Case{"is_causal and padding", AttentionMask::boolean(padding_mask({4, 2}, Sk)), true}}) {
    INFO(c.name);
    REQUIRE_SAME_OP(fused(c.mask, c.is_causal), composed_op(c.mask, c.is_causal), in);
  }
}

TEST_CASE("attention mask: gradcheck with boolean, additive and causal masks, Sq != Sk",
          "[ops][attention][mask][gradcheck]") {
  const std::size_t B = 2, Sq = 3, Sk = 4;
  const Tensors in = attention_inputs({B, 2}, Sq, Sk, 3, 2, 700);
  Array additive = randn({Sq, Sk}, 701);
  additive(0, 3) = minus_inf;
  struct Case {
    const char* name;
    AttentionMask mask;
    bool is_causal;
    std::optional<double> scale;
  };
  for (const Case& c : {Case{"boolean (B, 1, Sq, Sk)", AttentionMask::boolean(random_allowed({B, 1, Sq, Sk}, 702)), false, {}},
                        Case{"additive (Sq, Sk)", AttentionMask::additive(additive), false, {}},
                        Case{"is_causal", {}, true, {}},
                        Case{"is_causal and padding, scale 0.7", AttentionMask::boolean(padding_mask({4, 3}, Sk)), true, 0.7}}) {
    INFO(c.name);
    REQUIRE_GRADCHECK(fused(c.mask, c.is_causal, c.scale), in);
    REQUIRE_GRADCHECK(composed_op(c.mask, c.is_causal, c.scale), in);
  }
}

TEST_CASE("attention mask: PyTorch parity (boolean broadcast, additive, top-left causal, padding)",
          "[ops][attention][mask][parity]") {
  const double rtol = 1e-9, atol = 1e-12;
  const auto check_case = [&](const std::string& name, const AttentionMask& mask, bool is_causal) {
    INFO("fixture " << name);
    const parity::Fixture f(name, "llm");
    Tensors in{Tensor(f.load("q"), true, "q"), Tensor(f.load("k"), true, "k"), Tensor(f.load("v"), true, "v")};
    Tensor y = scaled_dot_product_attention(in[0], in[1], in[2], mask, is_causal);
    y.backward(f.load("dy"));
    parity::check_close(name + " output", y.value(), f.load("output"), rtol, atol);
    parity::check_close(name + " grad q", in[0].grad(), f.load("grad_q"), rtol, atol);
    parity::check_close(name + " grad k", in[1].grad(), f.load("grad_k"), rtol, atol);
    parity::check_close(name + " grad v", in[2].grad(), f.load("grad_v"), rtol, atol);
  };
  check_case("sdpa_bool_broadcast", AttentionMask::boolean(parity::Fixture("sdpa_bool_broadcast", "llm").load("mask")),
             false);
  check_case("sdpa_additive", AttentionMask::additive(parity::Fixture("sdpa_additive", "llm").load("mask")), false);

  // PyTorch's is_causal=True with Sq = 3, Sk = 6 is top left: causal_mask(top_left) is its mask.
  const parity::Fixture causal("sdpa_causal_top_left", "llm");
  const Array top_left = causal_mask(3, 6, CausalAlignment::top_left);
  CHECK((top_left == causal.load("mask")));
  check_case("sdpa_causal_top_left", AttentionMask::boolean(top_left), false);

  const parity::Fixture padding("sdpa_padding", "llm");
  const Array lengths = padding.load("lengths");
  const Array mask = padding_mask({static_cast<std::size_t>(lengths(0)), static_cast<std::size_t>(lengths(1))}, 5);
  CHECK((mask == padding.load("mask")));
  check_case("sdpa_padding", AttentionMask::boolean(mask), false);
}

TEST_CASE("attention mask: bad masks, shapes and scales name the op, the shapes and what was expected",
          "[ops][attention][mask][errors]") {
  const Tensor q = param({2, 2, 4, 3}, 800, "q"), k = param({2, 2, 5, 3}, 801, "k"), v = param({2, 2, 5, 2}, 802, "v");
  const auto run = [&](const AttentionMask& mask, bool is_causal = false, std::optional<double> scale = std::nullopt) {
    return message_of([&] { scaled_dot_product_attention(q, k, v, mask, is_causal, scale); });
  };
  SECTION("a mask that does not broadcast to the scores (B, H, Sq, Sk) = (2, 2, 4, 5)") {
    for (const Shape& bad : {Shape{4, 4}, Shape{5, 4}, Shape{3, 1, 4, 5}, Shape{2, 2, 4, 1, 5}}) {
      INFO("mask shape " << shape_str(bad));
      for (const std::string& message : {run(AttentionMask::boolean(xt::ones<double>(bad))),
                                         run(AttentionMask::additive(xt::zeros<double>(bad)), true)}) {
        CHECK_THAT(message, Catch::Contains("scaled_dot_product_attention: attn_mask of shape " + shape_str(bad)) &&
                                Catch::Contains("does not broadcast to the scores (2, 2, 4, 5)") &&
                                Catch::Contains("expected a shape that broadcasts to (..., Sq, Sk), such as (4, 5)"));
      }
    }
    CHECK_THAT(message_of([&] {
                 composed::scaled_dot_product_attention(q, k, v, AttentionMask::boolean(xt::ones<double>({4, 4})));
               }),
               Catch::Contains("composed::scaled_dot_product_attention: attn_mask of shape (4, 4)"));
  }
  SECTION("mask values: a boolean mask holds only 0 and 1, an additive one no NaN or +∞") {
    Array half = xt::ones<double>({4, 5});
    half(1, 2) = 0.5;
    CHECK_THAT(run(AttentionMask::boolean(half)),
               Catch::Contains("scaled_dot_product_attention: a boolean attn_mask holds 0.5") &&
                   Catch::Contains("expected only 0 (may not attend) and 1 (may attend)"));
    for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
      Array bias = xt::zeros<double>({4, 5});
      bias(3, 0) = bad;
      CHECK_THAT(run(AttentionMask::additive(bias)),
                 Catch::Contains("scaled_dot_product_attention: an additive attn_mask holds") &&
                     Catch::Contains("expected finite values or −∞"));
    }
  }
  SECTION("q, k, v shapes, with a mask too") {
    const AttentionMask mask = AttentionMask::boolean(xt::ones<double>({4, 5}));
    const auto run_qkv = [&](const Tensor& a, const Tensor& b, const Tensor& c) {
      return message_of([&] { scaled_dot_product_attention(a, b, c, mask, true); });
    };
    CHECK_THAT(run_qkv(q, param({2, 2, 5, 4}, 803, "k"), v),
               Catch::Contains("scaled_dot_product_attention: got q 'q' (2, 2, 4, 3), k 'k' (2, 2, 5, 4)") &&
                   Catch::Contains("head width Dh") && Catch::Contains("expected q (..., Sq, Dh), k (..., Sk, Dh)"));
    CHECK_THAT(run_qkv(q, k, param({2, 2, 6, 2}, 804, "v")),
               Catch::Contains("v 'v' (2, 2, 6, 2)") && Catch::Contains("number of keys Sk"));
    CHECK_THAT(run_qkv(q, param({2, 3, 5, 3}, 805, "k"), param({2, 3, 5, 2}, 806, "v")),
               Catch::Contains("leading (batch, head) axes differ at axis 1"));
    CHECK_THAT(run_qkv(q, param({2, 5, 3}, 807, "k"), param({2, 5, 2}, 808, "v")),
               Catch::Contains("same number (>= 2) of dimensions"));
  }
  SECTION("a scale that is NaN or infinite") {
    for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity(), minus_inf}) {
      INFO("scale " << bad);
      for (const std::string& message :
           {run({}, false, bad), message_of([&] { composed::scaled_dot_product_attention(q, k, v, {}, false, bad); })}) {
        CHECK_THAT(message, Catch::Contains("scaled_dot_product_attention: invalid scale=") &&
                                Catch::Contains("q 'q' (2, 2, 4, 3)") && Catch::Contains("expected a finite number"));
      }
    }
  }
}
