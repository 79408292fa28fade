// Exercise 15: grouped-query attention forward (GQA; MQA with one kv head), q (B, H, S, D), k and v (B, Hkv, S, D).
// Reference: the library's repeat_kv (repeat_interleave) and scaled_dot_product_attention; catalogue: attention
// per query head on plain loops, reading the kv head the slip picks.

#include <cmath>

#include "exercise_llm_common.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/repeat_kv.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {q, k, v, causal (0/1)}
namespace gqa_input {
enum : std::size_t { q, k, v, causal };
}

// y with query head h reading kv head kv_head(h, H, Hkv).
Array gqa_by_loops(const Case& c, const std::function<std::size_t(std::size_t, std::size_t, std::size_t)>& kv_head) {
  const Array &q = c.in[gqa_input::q], &k = c.in[gqa_input::k], &v = c.in[gqa_input::v];
  const bool causal = c.in[gqa_input::causal]() != 0;
  const std::size_t B = q.shape()[0], H = q.shape()[1], S = q.shape()[2], D = q.shape()[3], Hkv = k.shape()[1];
  const double scale = 1.0 / std::sqrt(double(D));
  Array y = xt::zeros<double>(q.shape());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t g = kv_head(h, H, Hkv);
      for (std::size_t i = 0; i < S; ++i) {
        std::vector<double> p(S);
        double m = -INFINITY, z = 0;
        for (std::size_t j = 0; j < S; ++j) {
          double s = 0;
          for (std::size_t e = 0; e < D; ++e) s += q(b, h, i, e) * k(b, g, j, e);
          p[j] = !causal || j <= i ? s * scale : -INFINITY;
          m = std::max(m, p[j]);
        }
        for (std::size_t j = 0; j < S; ++j) z += p[j] = std::exp(p[j] - m);
        for (std::size_t j = 0; j < S; ++j)
          for (std::size_t e = 0; e < D; ++e) y(b, h, i, e) += p[j] / z * v(b, g, j, e);
      }
    }
  return y;
}

}  // namespace

Spec grouped_query_attention_spec() {
  Spec s;
  s.exercise = "grouped_query_attention";
  Draw d(15);
  struct Shp {
    std::size_t B, H, Hkv, S, D;
    bool causal;
    Text what;
  };
  const std::vector<Shp> shapes = {
      {1, 4, 2, 1, 2, false, {"worked example: S 1, so y[h] = v[h / 2]", "例子：S 1，所以 y[h] = v[h / 2]"}},
      {1, 4, 2, 3, 4, true, {"GQA, causal", "GQA，因果"}},
      {2, 6, 2, 4, 2, false, {"GQA, n_rep 3", "GQA，n_rep 3"}},
      {1, 6, 3, 3, 4, true, {"GQA, n_rep 2, causal", "GQA，n_rep 2，因果"}},
      {2, 4, 1, 4, 3, true, {"MQA (one kv head), causal", "MQA（一个 kv 头），因果"}},
      {1, 3, 3, 2, 4, false, {"MHA (Hkv = H)", "MHA（Hkv = H）"}},
  };
  for (const Shp& sh : shapes) {
    Case c;
    const std::string dims = "B " + std::to_string(sh.B) + ", H " + std::to_string(sh.H) + ", Hkv " +
                             std::to_string(sh.Hkv) + ", S " + std::to_string(sh.S) + ", D " + std::to_string(sh.D);
    const std::string dims_zh = "B " + std::to_string(sh.B) + "，H " + std::to_string(sh.H) + "，Hkv " +
                                std::to_string(sh.Hkv) + "，S " + std::to_string(sh.S) + "，D " + std::to_string(sh.D);
    c.name = {dims + ", " + sh.what.en, dims_zh + "，" + sh.what.zh};
    c.in = {d.normal({sh.B, sh.H, sh.S, sh.D}), d.normal({sh.B, sh.Hkv, sh.S, sh.D}),
            d.normal({sh.B, sh.Hkv, sh.S, sh.D}), scalar(sh.causal ? 1 : 0)};
    s.cases.push_back(c);
  }
  s.reference = [](const Case& c) {
    const std::size_t n_rep = c.in[gqa_input::q].shape()[1] / c.in[gqa_input::k].shape()[1];
    const Tensor y = scaled_dot_product_attention(Tensor(c.in[gqa_input::q]), repeat_kv(Tensor(c.in[gqa_input::k]), n_rep),
                                                  repeat_kv(Tensor(c.in[gqa_input::v]), n_rep),
                                                  c.in[gqa_input::causal]() != 0);
    return Outputs{y.value()};
  };
  s.mistakes.push_back(
      {"kv_heads_tiled",
       [](const Case& c) {
         return Outputs{gqa_by_loops(c, [](std::size_t h, std::size_t, std::size_t Hkv) { return h % Hkv; })};
       },
       {"Query head h reads kv head h % Hkv: that is torch's repeat (tiling, k.repeat(1, n_rep, 1, 1) or xt::tile), "
        "which lays the kv heads out as 0, 1, 0, 1. GQA groups consecutive query heads, so query head h reads kv "
        "head g = h / n_rep with n_rep = H / Hkv, as repeat_interleave (0, 0, 1, 1). MQA and MHA cannot tell the "
        "two apart.",
        "query 头 h 读了 kv 头 h % Hkv：这是 torch 的 repeat（平铺，k.repeat(1, n_rep, 1, 1) 或 xt::tile），把 kv 头排成 "
        "0、1、0、1。GQA 把相邻的 query 头分成一组，所以 query 头 h 读 kv 头 g = h / n_rep，n_rep = H / Hkv，即 "
        "repeat_interleave（0、0、1、1）。MQA 和 MHA 上两者没有区别。"},
       false});
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_grouped_query_attention(GroupedQueryAttentionForward forward, const Options& options) {
  return graded(grouped_query_attention_spec(),
                {{"grouped_query_attention_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[gqa_input::q], c.in[gqa_input::k], c.in[gqa_input::v],
                                           c.in[gqa_input::causal]() != 0)};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
