// grouped_query_attention (one tape entry, kv heads read in place) against its reference, repeat_kv then
// scaled_dot_product_attention: the same values and gradients to the last bit (the same dgemm calls on the
// same values, dk and dv summed over each group in repeat_kv_backward's order); gradchecks for MHA, GQA and
// MQA, causal and masked; errors. And split_heads / merge_heads against reshape + transpose.
#include <limits>

#include <xtensor/xview.hpp>

#include "ops/op_common.hpp"
#include "tapegrad/ops/grouped_query_attention.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// Equal value for value (±0 count as equal: the two paths may differ only in the sign of a zero).
bool same_values(const Array& a, const Array& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i])) return false;
  return true;
}

// q (B, Hq, Sq, D), k and v (B, Hkv, Sk, D), each requiring grad.
Tensors grouped_inputs(std::size_t batch, std::size_t hq, std::size_t hkv, std::size_t sq, std::size_t sk,
                       std::size_t d, std::uint64_t seed) {
  return {param({batch, hq, sq, d}, seed, "q"), param({batch, hkv, sk, d}, seed + 1, "k"),
          param({batch, hkv, sk, d}, seed + 2, "v")};
}

struct Heads {
  const char* name;
  std::size_t hq, hkv;
};
const Heads head_counts[] = {{"MHA", 4, 4}, {"GQA", 4, 2}, {"GQA of 3", 6, 2}, {"MQA", 4, 1}};

// The masks the tests run: none; padding (B, 1, 1, Sk) with the second sequence's last keys padded, and a
// fully masked row (B = 2, an (Sq, Sk) boolean mask whose first row is all 0); an additive (Sq, Sk) bias.
std::vector<std::pair<const char*, AttentionMask>> masks(std::size_t sq, std::size_t sk) {
  Array blocked_row = xt::ones<double>({sq, sk});
  xt::view(blocked_row, 0, xt::all()) = 0.0;
  return {{"no mask", AttentionMask{}},
          {"padding", AttentionMask::boolean(padding_mask({sk, sk - 2}, sk))},
          {"a fully masked row", AttentionMask::boolean(blocked_row)},
          {"additive", AttentionMask::additive(randn({sq, sk}, 77))}};
}

}  // namespace

TEST_CASE("grouped_query_attention: the same values and gradients as repeat_kv + scaled_dot_product_attention",
          "[ops][attention][gqa][kernel]") {
  struct Lengths {
    std::size_t sq, sk;
  };
  for (const Heads& h : head_counts)
    for (const Lengths& z : {Lengths{5, 5}, Lengths{3, 6}})  // Sq < Sk: the causal mask bottom right
      for (const bool causal : {false, true})
        for (const auto& [mask_name, mask] : masks(z.sq, z.sk)) {
          INFO(h.name << ", Sq " << z.sq << ", Sk " << z.sk << ", causal " << causal << ", " << mask_name);
          const GroupedQueryAttentionOptions options{causal, mask, std::nullopt};
          const Tensors in = grouped_inputs(2, h.hq, h.hkv, z.sq, z.sk, 4, 20 + h.hq + h.hkv);
          const ValueAndGrads fused = value_and_grads(
              [&](const Tensors& t) { return grouped_query_attention(t[0], t[1], t[2], options); }, in);
          const ValueAndGrads reference = value_and_grads(
              [&](const Tensors& t) { return composed::grouped_query_attention(t[0], t[1], t[2], options); }, in);
          CHECK(fused.value.shape() == Shape{2, h.hq, z.sq, 4});
          CHECK(same_values(fused.value, reference.value));
          for (std::size_t i = 0; i < 3; ++i) {
            INFO("the gradient of " << "qkv"[i]);
            CHECK(same_values(fused.grads[i], reference.grads[i]));
          }
        }
}

TEST_CASE("grouped_query_attention: query head h reads kv head h / n_rep, and the scale is used",
          "[ops][attention][gqa]") {
  // Head by head with the single-head attention: a wrong grouping (h % Hkv, torch's repeat) or a dropped
  // scale would give other values.
  const Tensors in = grouped_inputs(2, 6, 2, 4, 4, 3, 40);
  const GroupedQueryAttentionOptions options{true, AttentionMask{}, 0.7};
  const Array y = grouped_query_attention(in[0], in[1], in[2], options).value();
  for (std::size_t h = 0; h < 6; ++h) {
    INFO("query head " << h);
    const auto head_of = [](const Tensor& t, std::size_t j) {
      return constant(Array(xt::view(t.value(), xt::all(), xt::range(j, j + 1), xt::all(), xt::all())));
    };
    const Array want = scaled_dot_product_attention(head_of(in[0], h), head_of(in[1], h / 3), head_of(in[2], h / 3),
                                                    AttentionMask{}, true, 0.7)
                           .value();
    CHECK(same_values(Array(xt::view(y, xt::all(), xt::range(h, h + 1), xt::all(), xt::all())), want));
  }
}

TEST_CASE("grouped_query_attention: gradcheck of q, k and v (MHA, GQA, MQA, causal, masked)",
          "[ops][attention][gqa][gradcheck]") {
  for (const Heads& h : head_counts)
    for (const bool causal : {false, true})
      for (const auto& [mask_name, mask] : masks(3, 4)) {
        INFO(h.name << ", causal " << causal << ", " << mask_name);
        const GroupedQueryAttentionOptions options{causal, mask, std::nullopt};
        REQUIRE_GRADCHECK([&](const Tensors& t) { return grouped_query_attention(t[0], t[1], t[2], options); },
                          grouped_inputs(2, h.hq, h.hkv, 3, 4, 2, 60 + h.hq * h.hkv));
      }
}

TEST_CASE("grouped_query_attention: one tape entry, the reference three", "[ops][attention][gqa]") {
  const Tensors in = grouped_inputs(1, 4, 2, 3, 3, 2, 80);
  const std::size_t before = tape().size();
  const Tensor fused = grouped_query_attention(in[0], in[1], in[2]);
  CHECK(tape().size() == before + 1);
  const Tensor reference = composed::grouped_query_attention(in[0], in[1], in[2]);
  CHECK(tape().size() == before + 1 + 3);  // repeat_kv, repeat_kv, scaled_dot_product_attention
  CHECK(same_values(fused.value(), reference.value()));
}

TEST_CASE("grouped_query_attention: inside a precision_scope, the reference's rounding", "[ops][attention][gqa]") {
  // The reference rounds each query head's dk before repeat_kv sums them; the fused op defers to it there.
  const Tensors in = grouped_inputs(2, 4, 2, 3, 3, 4, 90);
  precision_scope bf16(Precision::bf16);
  const ValueAndGrads fused =
      value_and_grads([](const Tensors& t) { return grouped_query_attention(t[0], t[1], t[2]); }, in);
  const ValueAndGrads reference =
      value_and_grads([](const Tensors& t) { return composed::grouped_query_attention(t[0], t[1], t[2]); }, in);
  CHECK(same_values(fused.value, reference.value));
  for (std::size_t i = 0; i < 3; ++i) CHECK(same_values(fused.grads[i], reference.grads[i]));
}

TEST_CASE("grouped_query_attention: bad shapes name the op, the shapes and what was expected",
          "[ops][attention][gqa][errors]") {
  const auto message = [](const Shape& qs, const Shape& ks, const Shape& vs) {
    return message_of([&] {
      grouped_query_attention(param(qs, 1, "q"), param(ks, 2, "k"), param(vs, 3, "v"));
    });
  };
  const auto names_all = [](const std::string& m) {
    return m.find("grouped_query_attention: got q 'q' (") == 0 &&
           m.find("expected q (B, Hq, Sq, D), k (B, Hkv, Sk, D), v (B, Hkv, Sk, Dv)") != std::string::npos;
  };
  const std::string not_multiple = message({2, 3, 4, 8}, {2, 2, 4, 8}, {2, 2, 4, 8});
  CHECK(names_all(not_multiple));
  CHECK_THAT(not_multiple, Catch::Contains("q 'q' (2, 3, 4, 8), k 'k' (2, 2, 4, 8), v 'v' (2, 2, 4, 8)") &&
                               Catch::Contains("Hq = 3 is not a multiple of Hkv = 2"));
  CHECK_THAT(message({2, 4, 4, 8}, {2, 2, 4, 8}, {2, 2, 4}), Catch::Contains("(4-D each)"));
  CHECK_THAT(message({2, 4, 4, 8}, {3, 2, 4, 8}, {3, 2, 4, 8}), Catch::Contains("the batch sizes differ"));
  CHECK_THAT(message({2, 4, 4, 8}, {2, 2, 4, 8}, {2, 1, 4, 8}), Catch::Contains("k and v differ in the number of kv heads"));
  CHECK_THAT(message({2, 4, 4, 8}, {2, 2, 4, 6}, {2, 2, 4, 8}), Catch::Contains("q and k differ in the head width D"));
  CHECK_THAT(message({2, 4, 4, 8}, {2, 2, 4, 8}, {2, 2, 5, 8}), Catch::Contains("k and v differ in the number of keys"));
  CHECK_THAT(message({2, 4, 4, 8}, {2, 2, 0, 8}, {2, 2, 0, 8}), Catch::Contains("no keys (Sk = 0)"));
  for (const std::string& m : {message({2, 4, 4, 8}, {2, 2, 4, 8}, {2, 2, 4}), message({2, 4, 4, 8}, {3, 2, 4, 8}, {3, 2, 4, 8}),
                               message({2, 4, 4, 8}, {2, 2, 4, 6}, {2, 2, 4, 8})})
    CHECK(names_all(m));
  const Tensors in = grouped_inputs(1, 2, 1, 2, 2, 2, 5);
  CHECK_THAT(message_of([&] { grouped_query_attention(in[0], in[1], in[2], {false, AttentionMask{}, std::numeric_limits<double>::infinity()}); }),
             Catch::Contains("grouped_query_attention: invalid scale=inf"));
  CHECK_THAT(message_of([&] {
               grouped_query_attention(in[0], in[1], in[2], {false, AttentionMask::boolean(xt::ones<double>({3, 3})), {}});
             }),
             Catch::Contains("grouped_query_attention"));
}

TEST_CASE("split_heads and merge_heads: reshape + transpose as one op each, the same arrays",
          "[ops][attention][gqa][shape]") {
  const Tensor x = param({2, 3, 12}, 100, "x");
  const Tensor split = split_heads(x, 4);
  CHECK(split.shape() == Shape{2, 4, 3, 3});
  CHECK(same_values(split.value(), transpose(reshape(constant(x.value()), {2, 3, 4, 3}), 1, 2).value()));
  CHECK(same_values(merge_heads(split).value(), x.value()));
  // Gradients: each is the other's copy.
  const ValueAndGrads fused = value_and_grads([](const Tensors& t) { return split_heads(t[0], 4); }, {x});
  const ValueAndGrads reference =
      value_and_grads([](const Tensors& t) { return transpose(reshape(t[0], {2, 3, 4, 3}), 1, 2); }, {x});
  CHECK(same_values(fused.grads[0], reference.grads[0]));
  const Tensor heads = param({2, 4, 3, 3}, 101, "heads");
  const ValueAndGrads merged = value_and_grads([](const Tensors& t) { return merge_heads(t[0]); }, {heads});
  const ValueAndGrads merged_reference =
      value_and_grads([](const Tensors& t) { return reshape(transpose(t[0], 1, 2), {2, 3, 12}); }, {heads});
  CHECK(same_values(merged.value, merged_reference.value));
  CHECK(same_values(merged.grads[0], merged_reference.grads[0]));
  REQUIRE_GRADCHECK([](const Tensors& t) { return merge_heads(split_heads(t[0], 2)); }, (Tensors{param({2, 3, 4}, 102)}));
  REQUIRE_GRADCHECK([](const Tensors& t) { return split_heads(t[0], 3); }, (Tensors{param({1, 2, 6}, 103)}));
}

TEST_CASE("split_heads and merge_heads: bad shapes are clear errors", "[ops][attention][gqa][errors]") {
  CHECK_THAT(message_of([] { split_heads(param({2, 3, 10}, 1, "x"), 4); }),
             Catch::Contains("split_heads: got x 'x' (2, 3, 10) with heads = 4") &&
                 Catch::Contains("expected x of shape (B, S, H·D) with its last dimension a multiple of heads > 0"));
  CHECK_THAT(message_of([] { split_heads(param({6, 10}, 1, "x"), 2); }), Catch::Contains("split_heads: got x 'x' (6, 10)"));
  CHECK_THAT(message_of([] { split_heads(param({2, 3, 10}, 1, "x"), 0); }), Catch::Contains("with heads = 0"));
  CHECK_THAT(message_of([] { merge_heads(param({2, 3, 10}, 1, "y")); }),
             Catch::Contains("merge_heads: got x 'y' (2, 3, 10); expected x of shape (B, H, S, D)"));
}
