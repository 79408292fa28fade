// nn::MultiheadAttention with kernels::use_fast_kernels on (split_heads, grouped_query_attention, merge_heads)
// against the reference path (reshape + transpose, repeat_kv, scaled_dot_product_attention): the same output
// and the same gradients of x and of every parameter, to the last bit; fewer tape entries.
#include <functional>

#include "../../src/autograd/kernel_switch.hpp"
#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using namespace tapegrad::testing;

namespace {

// Sets the switch for its lifetime, then puts back what it was.
struct FastKernels {
  bool before = kernels::use_fast_kernels;
  explicit FastKernels(bool on) { kernels::use_fast_kernels = on; }
  ~FastKernels() { kernels::use_fast_kernels = before; }
};

// The output, the gradient of x and those of the parameters (in order) of Σ w ⊙ m(x), and how many tape
// entries the forward recorded, with the switch set to `fast`.
struct Run {
  Array y;
  std::vector<Array> grads;
  std::size_t entries;
};

Run run(MultiheadAttention& m, const Array& x_value, const AttentionMask& mask, bool fast) {
  FastKernels mode(fast);
  m.zero_grad();
  Tensor x(x_value, true, "x");
  tape().clear();
  const Tensor y = mask.empty() ? m(x) : m.forward(x, mask);
  Run out{y.value(), {}, tape().size()};
  sum(mul(y, Tensor(randn(y.shape(), 55)))).backward();
  out.grads.push_back(x.grad());
  for (const Tensor& p : m.parameters()) out.grads.push_back(p.grad());
  return out;
}

bool same_values(const Array& a, const Array& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i])) return false;
  return true;
}

struct Config {
  const char* name;
  std::size_t kv_heads;
  std::optional<RopeStyle> rope;
};
const Config configs[] = {{"MHA", 0, std::nullopt},
                          {"GQA + RoPE half_split", 2, RopeStyle::half_split},
                          {"GQA + RoPE interleaved", 2, RopeStyle::interleaved},
                          {"MQA + RoPE half_split", 1, RopeStyle::half_split}};

MultiheadAttention make(const Config& c, bool causal, std::uint64_t seed) {
  MultiheadAttentionOptions o;
  o.num_kv_heads = c.kv_heads;
  o.rope = c.rope;
  o.causal = causal;
  o.bias = true;
  Generator gen(seed);
  return MultiheadAttention(16, 4, o, gen);
}

}  // namespace

TEST_CASE("MultiheadAttention: the fused path equals the reference bit for bit, output and every gradient",
          "[nn][mha][kernel]") {
  const Array x = randn({2, 5, 16}, 3);
  for (const Config& c : configs)
    for (const bool causal : {true, false})
      for (const bool padded : {false, true}) {
        INFO(c.name << (causal ? ", causal" : ", not causal") << (padded ? ", padding mask" : ""));
        MultiheadAttention m = make(c, causal, 11);
        const AttentionMask mask = padded ? AttentionMask::boolean(padding_mask({5, 3}, 5)) : AttentionMask{};
        const Run fused = run(m, x, mask, true), reference = run(m, x, mask, false);
        CHECK(same_values(fused.y, reference.y));
        REQUIRE(fused.grads.size() == reference.grads.size());
        for (std::size_t i = 0; i < fused.grads.size(); ++i) {
          INFO("gradient " << i << " (0 = x, then the parameters in order)");
          CHECK(same_values(fused.grads[i], reference.grads[i]));
        }
      }
}

TEST_CASE("MultiheadAttention: the fused path records 11 tape entries, the reference 17", "[nn][mha][kernel]") {
  // Reference: 4 projections, reshape + transpose for q, k, v (6), RoPE on q and k (2), repeat_kv on k and v
  // (2), the attention, transpose + reshape back (2). Fused: split_heads for q, k, v (3) and merge_heads (1)
  // for the layout changes, one grouped_query_attention for repeat_kv twice and the attention.
  MultiheadAttention m = make(configs[1], true, 12);
  const Array x = randn({2, 3, 16}, 4);
  CHECK(run(m, x, AttentionMask{}, false).entries == 17);
  CHECK(run(m, x, AttentionMask{}, true).entries == 11);
}

TEST_CASE("MultiheadAttention: inside a precision_scope the fused path equals the reference too", "[nn][mha][kernel]") {
  MultiheadAttention m = make(configs[1], true, 13);
  const Array x = randn({2, 4, 16}, 5);
  precision_scope bf16(Precision::bf16);
  const Run fused = run(m, x, AttentionMask{}, true), reference = run(m, x, AttentionMask{}, false);
  CHECK(same_values(fused.y, reference.y));
  for (std::size_t i = 0; i < fused.grads.size(); ++i) CHECK(same_values(fused.grads[i], reference.grads[i]));
}
