// multi_head_attention on a packed (B, S, 3d) projection: the fast kernel (src/ops/fast/
// attention_fast.cpp, strided BLAS, no layout copies) against the reference (attention.cpp:
// narrow, reshape, transpose, scaled_dot_product_attention, transpose, reshape). They make the
// same dgemm calls on the same values and share the softmax rows, so the output and the gradient
// of qkv agree bit for bit. Plus a gradcheck of the fast op and its errors.
#include <cstring>

#include "ops/op_common.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

bool bitwise_equal(const Array& a, const Array& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

using Attention = Tensor (*)(const Tensor&, std::size_t, bool);

// y and dqkv of Σ w ⊙ y, for fixed weights w.
ValueAndGrads run(Attention attention, const Array& qkv, std::size_t heads, bool causal) {
  return value_and_grads([&](const Tensors& in) { return attention(in[0], heads, causal); },
                         Tensors{Tensor(qkv, true, "qkv")});
}

}  // namespace

TEST_CASE("multi_head_attention: fast == reference bit for bit, values and gradients", "[ops][attention][kernel]") {
  struct Size {
    std::size_t batch, seq, d, heads;
  };
  for (const Size& z : std::vector<Size>{{2, 5, 8, 1}, {2, 5, 8, 2}, {2, 5, 8, 4}, {3, 1, 6, 3}, {1, 7, 12, 2},
                                         {4, 16, 64, 4}})  // the last: the lab's sizes, a smaller batch
    for (const bool causal : {false, true}) {
      INFO("B " << z.batch << ", S " << z.seq << ", d " << z.d << ", heads " << z.heads << ", causal " << causal);
      const Array qkv = randn({z.batch, z.seq, 3 * z.d}, 7 + z.d);
      const ValueAndGrads ref = run(kernels::reference::multi_head_attention, qkv, z.heads, causal);
      const ValueAndGrads fast = run(kernels::fast::multi_head_attention, qkv, z.heads, causal);
      CHECK(fast.value.shape() == Shape{z.batch, z.seq, z.d});
      CHECK(bitwise_equal(fast.value, ref.value));
      REQUIRE(fast.grads.size() == 1);
      CHECK(bitwise_equal(fast.grads[0], ref.grads[0]));
    }
}

TEST_CASE("multi_head_attention: the fast op is one tape entry, the reference twelve", "[ops][attention][kernel]") {
  const Tensor qkv = param({2, 3, 12}, 8, "qkv");
  const std::size_t before = tape().size();
  const Tensor y = kernels::fast::multi_head_attention(qkv, 2);
  CHECK(tape().size() == before + 1);
  const Tensor z = kernels::reference::multi_head_attention(qkv, 2);
  CHECK(tape().size() == before + 1 + 12);
  CHECK(bitwise_equal(y.value(), z.value()));
}

TEST_CASE("multi_head_attention: gradcheck of the fast op, causal or not", "[ops][attention][gradcheck]") {
  for (const bool causal : {false, true}) {
    INFO("causal " << causal);
    const auto attention = [causal](const Tensors& in) {
      return kernels::fast::multi_head_attention(in[0], 2, causal);
    };
    REQUIRE_GRADCHECK(attention, Tensors{param({2, 3, 12}, 9)});
  }
}

TEST_CASE("multi_head_attention: bad shapes and head counts are clear errors", "[ops][attention][errors]") {
  for (Attention attention :
       {Attention(kernels::fast::multi_head_attention), Attention(kernels::reference::multi_head_attention)}) {
    const Tensor x = param({2, 3, 12}, 10, "qkv");
    CHECK_THAT(message_of([&] { attention(x, 0, false); }), Catch::Contains("multi_head_attention: heads = 0"));
    CHECK_THAT(message_of([&] { attention(x, 3, false); }),
               Catch::Contains("multi_head_attention: got qkv 'qkv' (2, 3, 12) with heads = 3") &&
                   Catch::Contains("expected qkv of shape (B, S, 3d)"));
    CHECK_THAT(message_of([&] { attention(param({6, 12}, 11, "flat"), 2, false); }),
               Catch::Contains("got qkv 'flat' (6, 12)"));
    CHECK_THAT(message_of([&] { attention(Tensor(Array::from_shape({2, 0, 12}), true, "e"), 2, false); }),
               Catch::Contains("no positions (S = 0)"));
  }
}
