// Exercise 17: one KV-cache decode step of one attention head with GPT-2's learned positions,
// h = x + pos[t], q, k, v = h Wqᵀ, h Wkᵀ, h Wvᵀ, y = softmax(q K[0..t]ᵀ/√D) V[0..t]. The learner decodes
// the tokens after a prefix the grader put in the cache; each y must be the full causal forward's row
// (the library's scaled_dot_product_attention, causal), and the cache must hold every k and v at its
// position. Catalogue: the decode on plain loops with a knob per known mistake.

#include <algorithm>
#include <cmath>

#include <xtensor/xview.hpp>

#include "grader.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/linear.hpp"

namespace tapegrad::exercise::detail {

namespace {

// in = {x (S, d), pos (max_len, d), wq, wk, wv, {prefix}}; outputs {y (S − prefix, Dv), keys, values, {length}}.
namespace input {
enum : std::size_t { x, pos, wq, wk, wv, prefix };
}
std::size_t prefix_of(const Case& c) { return static_cast<std::size_t>(c.in[input::prefix](0)); }
std::size_t steps_of(const Case& c) { return c.in[input::x].shape()[0]; }

// The whole sequence at once: h = x + pos[0..S), and q, k, v of every position (the library's linear).
struct Projected {
  Array q, k, v;
};
Projected project_all(const Case& c) {
  const std::size_t S = steps_of(c);
  const Array h = c.in[input::x] + Array(xt::view(c.in[input::pos], xt::range(0, S), xt::all()));
  auto proj = [&](std::size_t w) { return linear(Tensor(h), Tensor(c.in[w])).value(); };
  return {proj(input::wq), proj(input::wk), proj(input::wv)};
}

// An empty cache of max_len rows with the prefix's keys and values in rows 0..prefix−1.
DecodeCache prefilled(const Case& c, const Projected& all) {
  const std::size_t max_len = c.in[input::pos].shape()[0], P = prefix_of(c);
  DecodeCache cache{xt::zeros<double>({max_len, all.k.shape()[1]}), xt::zeros<double>({max_len, all.v.shape()[1]}), P};
  for (std::size_t t = 0; t < P; ++t) {
    xt::view(cache.keys, t, xt::all()) = xt::view(all.k, t, xt::all());
    xt::view(cache.values, t, xt::all()) = xt::view(all.v, t, xt::all());
  }
  return cache;
}

Outputs reference(const Case& c) {
  const Projected all = project_all(c);
  const std::size_t S = steps_of(c), P = prefix_of(c);
  const Array y = scaled_dot_product_attention(Tensor(all.q), Tensor(all.k), Tensor(all.v), true).value();
  DecodeCache full = prefilled(c, all);
  for (std::size_t t = P; t < S; ++t) {
    xt::view(full.keys, t, xt::all()) = xt::view(all.k, t, xt::all());
    xt::view(full.values, t, xt::all()) = xt::view(all.v, t, xt::all());
  }
  return {Array(xt::view(y, xt::range(P, S), xt::all())), full.keys, full.values, Array{double(S)}};
}

// The learner's (or a mistake's) steps from the prefilled cache: y of each step stacked, then the cache.
Outputs decoded(const Case& c, const std::function<Array(DecodeCache&, const Array& x)>& step) {
  DecodeCache cache = prefilled(c, project_all(c));
  const std::size_t S = steps_of(c), P = prefix_of(c), Dv = c.in[input::wv].shape()[0];
  Array ys = xt::zeros<double>({S - P, Dv});
  for (std::size_t t = P; t < S; ++t) {
    const Array y = step(cache, Array(xt::view(c.in[input::x], t, xt::all())));
    if (y.dimension() != 1 || y.size() != Dv) return {y, cache.keys, cache.values, Array{double(cache.length)}};
    xt::view(ys, t - P, xt::all()) = y;
  }
  return {ys, cache.keys, cache.values, Array{double(cache.length)}};
}

struct DecodeKnobs {
  std::size_t position_shift = 0;     // pos[t + shift]: 1 = the length after the increment
  bool attend_before_append = false;  // attend over rows 0..t−1, then write k and v
  bool causal_in_decode = false;      // the query masked as row 0 of a sequence: only key 0 seen
};

// (rows, n) · v: one row's dot products.
std::vector<double> times(const Array& m, const std::vector<double>& v, std::size_t rows) {
  std::vector<double> out(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < v.size(); ++i) out[r] += m(r, i) * v[i];
  return out;
}

Outputs decode_by_loops(const Case& c, const DecodeKnobs& kn) {
  const Array &pos = c.in[input::pos], &wq = c.in[input::wq], &wk = c.in[input::wk], &wv = c.in[input::wv];
  const std::size_t dm = wq.shape()[1], D = wq.shape()[0], Dv = wv.shape()[0];
  return decoded(c, [&](DecodeCache& cache, const Array& x) {
    const std::size_t t = cache.length;
    std::vector<double> h(dm);
    for (std::size_t i = 0; i < dm; ++i) h[i] = x(i) + pos(t + kn.position_shift, i);
    const std::vector<double> q = times(wq, h, D), k = times(wk, h, D), v = times(wv, h, Dv);
    for (std::size_t o = 0; o < D; ++o) cache.keys(t, o) = k[o];
    for (std::size_t o = 0; o < Dv; ++o) cache.values(t, o) = v[o];
    cache.length = t + 1;
    std::size_t n = kn.attend_before_append ? t : t + 1;
    if (kn.causal_in_decode) n = std::min<std::size_t>(n, 1);
    Array y = xt::zeros<double>({Dv});
    if (n == 0) return y;  // nothing to attend to: the sum over the keys stays 0
    std::vector<double> s = times(cache.keys, q, n);
    const double max = *std::max_element(s.begin(), s.end()) / std::sqrt(double(D));
    double z = 0;
    for (double& e : s) z += e = std::exp(e / std::sqrt(double(D)) - max);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t e = 0; e < Dv; ++e) y(e) += s[j] / z * cache.values(j, e);
    return y;
  });
}

const Text kPositionOffByOne{"The new token's position is off by one: it used pos[t + 1] (the length after the increment, or "
    "a position counted from 1). The token decoded at cache.length = t is at position t, and its q, "
    "k and v are the full forward's row t only with that position: h = x + pos[t], read before the "
    "length moves on.",
    "新 token 的位置差了一：用了 pos[t + 1]（自增之后的长度，或从 1 开始数的位置）。在 cache.length = t 时解码的 token 位于位置 "
    "t，只有用这个位置它的 q、k、v 才是完整前向的第 t 行：h = x + pos[t]，在长度加一之前读取。"};
const Text kAttendedBeforeAppend{"The new token's own key and value are missing from the attention: you attended over the cache "
    "before writing k and v into it (rows 0..t−1; at an empty cache, over nothing). In the full "
    "causal forward row t attends to keys 0..t, itself included, so write k and v into row t first, "
    "then attend over rows 0..t: y = softmax(q K[0..t]ᵀ/√D) V[0..t].",
    "注意力里少了新 token 自己的 key 和 value：你在把 k、v 写进 cache 之前就做了注意力（第 0..t−1 行；cache 为空时什么也没有）。在完整的因果前向中第 t "
    "行关注第 0..t 个 key，包括它自己，所以先把 k、v 写进第 t 行，再对第 0..t 行做注意力：y = softmax(q K[0..t]ᵀ/√D) V[0..t]。"};
const Text kCausalInDecode{"A causal mask was applied in the decode step as if the one query were row 0 of the sequence, so "
    "it saw only position 0 (the first token's v). In decoding the query is the last position t and "
    "every cached key (0..t) is at or before it, so there is no mask: y = softmax(q K[0..t]ᵀ/√D) "
    "V[0..t]. (A mask aligned at the bottom right, key j visible when j ≤ i + Sk − Sq, masks nothing "
    "here.)",
    "解码这一步加了因果掩码，好像这一个 query 是序列的第 0 行，所以它只看到位置 0（第一个 token 的 v）。解码时 query 是最后一个位置 t，缓存里的每个 "
    "key（0..t）都在它之前或就是它，所以不加掩码：y = softmax(q K[0..t]ᵀ/√D) V[0..t]。（右下对齐的掩码，j ≤ i + Sk − Sq "
    "时可见，在这里什么也不遮。）"};

}  // namespace

Spec kv_cache_decode_spec() {
  Spec s;
  s.exercise = "kv_cache_decode";
  Draw d(17);
  struct Setup {
    std::size_t prefix, S, dm, D, Dv;
    double spread;
  };
  for (const Setup& st : std::vector<Setup>{{0, 4, 5, 3, 4, 0.5}, {3, 5, 4, 4, 2, 0.5}, {0, 1, 3, 2, 3, 0.5},
                                            {2, 6, 6, 5, 3, 1.5}}) {
    const std::size_t n = st.S - st.prefix;
    const std::string sizes = ", d " + std::to_string(st.dm) + ", D " + std::to_string(st.D) + ", Dv " +
                              std::to_string(st.Dv) + (st.spread > 1 ? ", large scores" : "");
    const std::string sizes_zh = "，d " + std::to_string(st.dm) + "，D " + std::to_string(st.D) + "，Dv " +
                                 std::to_string(st.Dv) + (st.spread > 1 ? "，大分数" : "");
    Case c;
    c.name = {std::to_string(n) + (n == 1 ? " token" : " tokens") + " after a prefix of " + std::to_string(st.prefix) + sizes,
              "前缀 " + std::to_string(st.prefix) + " 之后解码 " + std::to_string(n) + " 个 token" + sizes_zh};
    c.in = {d.normal({st.S, st.dm}), d.normal({st.S + 2, st.dm}, 0, 0.5), d.normal({st.D, st.dm}, 0, st.spread),
            d.normal({st.D, st.dm}, 0, st.spread), d.normal({st.Dv, st.dm}, 0, 0.7), Array{double(st.prefix)}};
    c.fd = false;
    s.cases.push_back(c);
  }
  s.reference = reference;
  auto add = [&](const std::string& id, DecodeKnobs k, const Text& hint) {
    s.mistakes.push_back({id, [k](const Case& c) { return decode_by_loops(c, k); }, hint, false});
  };
  DecodeKnobs k;
  k.position_shift = 1;
  add("position_off_by_one", k, kPositionOffByOne);
  k = {};
  k.attend_before_append = true;
  add("attended_before_append", k, kAttendedBeforeAppend);
  k = {};
  k.causal_in_decode = true;
  add("causal_mask_in_decode", k, kCausalInDecode);
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_kv_cache_decode(KvCacheDecodeStep step, const Options& options) {
  return graded(kv_cache_decode_spec(),
                {{"kv_cache_decode_step", {"y", "cache.keys", "cache.values", "cache.length"},
                  [=](const Case& c) {
                    return decoded(c, [&](DecodeCache& cache, const Array& x) {
                      return step(cache, x, c.in[input::pos], c.in[input::wq], c.in[input::wk], c.in[input::wv]);
                    });
                  }}},
                options);
}

}  // namespace tapegrad::exercise
