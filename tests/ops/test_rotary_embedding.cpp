// rotary_embedding (RoPE): known rotations, the pairing of each style, norms kept, the relative
// property, gradchecks, fused vs composed, the two styles equal up to a permutation, PyTorch parity
// (Hugging Face's half_split, Meta's interleaved), bad input.
#include "ops/op_common.hpp"
#include "parity/parity_fixture.hpp"

#include <cmath>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// a[..., order[j]] at slot j of the last axis.
Array take_last_axis(const Array& a, const std::vector<std::size_t>& order) {
  Array out = Array::from_shape(a.shape());
  const std::size_t D = a.shape().back();
  for (std::size_t r = 0; r < a.size() / D; ++r)
    for (std::size_t j = 0; j < D; ++j) out.data()[r * D + j] = a.data()[r * D + order[j]];
  return out;
}

Array rope_values(const Array& x, const std::vector<std::int64_t>& positions, double base, RopeStyle style) {
  return rotary_embedding(constant(x), positions, base, style).value();
}

// q · k of two rows of D features.
double dot(const Array& q, const Array& k) {
  double s = 0.0;
  for (std::size_t j = 0; j < q.size(); ++j) s += q.data()[j] * k.data()[j];
  return s;
}

const RopeStyle both_styles[] = {RopeStyle::half_split, RopeStyle::interleaved};

}  // namespace

TEST_CASE("rotary_embedding: D = 2 at position 1 is a rotation by 1 rad, position 0 the identity", "[rope]") {
  for (RopeStyle style : both_styles) {
    const Array x = matrix({{1.0, 0.0}, {0.0, 1.0}, {0.3, -0.7}});
    // θ_0 = base^0 = 1 whatever the base: position p turns by p rad.
    const Array y = rope_values(x, {1, 1, 0}, 500.0, style);
    CHECK(y(0, 0) == Approx(std::cos(1.0)).epsilon(1e-15));
    CHECK(y(0, 1) == Approx(std::sin(1.0)).epsilon(1e-15));
    CHECK(y(1, 0) == Approx(-std::sin(1.0)).epsilon(1e-15));
    CHECK(y(1, 1) == Approx(std::cos(1.0)).epsilon(1e-15));
    CHECK(y(2, 0) == 0.3);  // position 0: unchanged
    CHECK(y(2, 1) == -0.7);
  }
}

TEST_CASE("rotary_embedding: θ_i = base^(−2i/D), and which features pair up in each style", "[rope]") {
  // D = 4, base 100: θ_0 = 1, θ_1 = 100^(−2/4) = 0.1. Position 2: angles 2 and 0.2 rad.
  const double a0 = 2.0, a1 = 0.2;
  const Array e0 = matrix({{1.0, 0.0, 0.0, 0.0}}), e1 = matrix({{0.0, 1.0, 0.0, 0.0}});
  SECTION("half_split: pairs (0, 2) and (1, 3)") {
    const Array y0 = rope_values(e0, {2}, 100.0, RopeStyle::half_split);
    CHECK(allclose(y0, matrix({{std::cos(a0), 0.0, std::sin(a0), 0.0}}), 1e-15, 1e-15));
    const Array y1 = rope_values(e1, {2}, 100.0, RopeStyle::half_split);
    CHECK(allclose(y1, matrix({{0.0, std::cos(a1), 0.0, std::sin(a1)}}), 1e-15, 1e-15));
  }
  SECTION("interleaved: pairs (0, 1) and (2, 3)") {
    const Array y0 = rope_values(e0, {2}, 100.0, RopeStyle::interleaved);
    CHECK(allclose(y0, matrix({{std::cos(a0), std::sin(a0), 0.0, 0.0}}), 1e-15, 1e-15));
    const Array e2 = matrix({{0.0, 0.0, 1.0, 0.0}});
    const Array y2 = rope_values(e2, {2}, 100.0, RopeStyle::interleaved);
    CHECK(allclose(y2, matrix({{0.0, 0.0, std::cos(a1), std::sin(a1)}}), 1e-15, 1e-15));
  }
  SECTION("the default style is half_split, the default base 10000") {
    const Array x = randn({3, 6}, 7);
    const auto positions = position_range(4, 3);
    CHECK(allclose(rotary_embedding(constant(x), positions).value(),
                   rope_values(x, positions, 10000.0, RopeStyle::half_split), 0.0, 0.0));
  }
}

TEST_CASE("rotary_embedding: position_range and a cached decode step's offset", "[rope]") {
  CHECK(position_range(5, 3) == std::vector<std::int64_t>{5, 6, 7});
  CHECK(position_range(-2, 2) == std::vector<std::int64_t>{-2, -1});
  CHECK(position_range(9, 0).empty());
  // Rows 5..7 of a prompt of 8, rotated on their own with offset 5, equal the same rows rotated in the prompt.
  const Array prompt = randn({2, 8, 6}, 3);
  for (RopeStyle style : both_styles) {
    const Array whole = rope_values(prompt, position_range(0, 8), 10000.0, style);
    const Array tail_in = xt::view(prompt, xt::all(), xt::range(5, 8), xt::all());
    const Array tail_out = rope_values(tail_in, position_range(5, 3), 10000.0, style);
    const Array want = xt::view(whole, xt::all(), xt::range(5, 8), xt::all());
    CHECK(allclose(tail_out, want, 0.0, 0.0));
  }
}

TEST_CASE("rotary_embedding: every pair keeps its length", "[rope]") {
  const Array x = randn({2, 3, 4, 8}, 11);
  for (RopeStyle style : both_styles) {
    const Array y = rope_values(x, position_range(100, 4), 10000.0, style);
    for (std::size_t r = 0; r < x.size() / 8; ++r)
      for (std::size_t i = 0; i < 4; ++i) {
        const std::size_t ia = style == RopeStyle::interleaved ? 2 * i : i;
        const std::size_t ib = style == RopeStyle::interleaved ? 2 * i + 1 : i + 4;
        const double* xr = x.data() + r * 8;
        const double* yr = y.data() + r * 8;
        CHECK(std::hypot(yr[ia], yr[ib]) == Approx(std::hypot(xr[ia], xr[ib])).epsilon(1e-14));
      }
  }
}

TEST_CASE("rotary_embedding: q · k after RoPE depends only on the position difference", "[rope]") {
  const Array q = randn({1, 8}, 21), k = randn({1, 8}, 22);
  for (RopeStyle style : both_styles) {
    auto score = [&](std::int64_t m, std::int64_t n) {
      return dot(rope_values(q, {m}, 10000.0, style), rope_values(k, {n}, 10000.0, style));
    };
    const double at_3_1 = score(3, 1);
    CHECK(score(7, 5) == Approx(at_3_1).epsilon(1e-12));
    CHECK(score(2, 0) == Approx(at_3_1).epsilon(1e-12));
    CHECK(score(-1, -3) == Approx(at_3_1).epsilon(1e-12));  // negative positions too
    CHECK(score(1002, 1000) == Approx(at_3_1).epsilon(1e-10));
    CHECK(std::abs(score(4, 1) - at_3_1) > 1e-3);  // another difference, another score
  }
}

TEST_CASE("rotary_embedding: gradcheck of both styles with a position offset", "[rope][gradcheck]") {
  const auto positions = position_range(5, 4);
  SECTION("half_split, (B, H, S, Dh) = (2, 3, 4, 6)") {
    Tensor x = param({2, 3, 4, 6}, 31, "x");
    REQUIRE_GRADCHECK([&](auto& in) { return rotary_embedding(in[0], positions, 10000.0, RopeStyle::half_split); },
                      (Tensors{x}));
  }
  SECTION("interleaved, (B, H, S, Dh) = (2, 3, 4, 6)") {
    Tensor x = param({2, 3, 4, 6}, 32, "x");
    REQUIRE_GRADCHECK([&](auto& in) { return rotary_embedding(in[0], positions, 10000.0, RopeStyle::interleaved); },
                      (Tensors{x}));
  }
  SECTION("the composed half_split") {
    Tensor x = param({3, 4, 6}, 33, "x");
    REQUIRE_GRADCHECK([&](auto& in) { return composed::rotary_embedding(in[0], positions, 500.0); }, (Tensors{x}));
  }
}

TEST_CASE("rotary_embedding: fused and composed half_split agree in value and gradient", "[rope][fused]") {
  const auto positions = position_range(7, 5);
  Tensor x = param({2, 3, 5, 8}, 41, "x");
  REQUIRE_SAME_OP([&](auto& in) { return rotary_embedding(in[0], positions, 10000.0, RopeStyle::half_split); },
                  [&](auto& in) { return composed::rotary_embedding(in[0], positions, 10000.0); }, (Tensors{x}));
  // One tape entry, drawn as a fused op.
  Tensor y = rotary_embedding(x, positions);
  CHECK(draw_dot(y).find("rotary_embedding\\nfused") != std::string::npos);
}

TEST_CASE("rotary_embedding: the two styles are equal up to a permutation of the features", "[rope]") {
  const std::vector<std::size_t> order = rope_half_split_order(8);
  CHECK(order == std::vector<std::size_t>{0, 2, 4, 6, 1, 3, 5, 7});
  const auto positions = position_range(3, 5);

  SECTION("half_split(x[..., order]) = interleaved(x)[..., order], and the gradients alike") {
    const Array x = randn({2, 5, 8}, 51);
    const Array want = take_last_axis(rope_values(x, positions, 10000.0, RopeStyle::interleaved), order);
    const Array got = rope_values(take_last_axis(x, order), positions, 10000.0, RopeStyle::half_split);
    CHECK(allclose(got, want, 1e-14, 1e-15));
    // The backward of each is the other's rotation by −angle: permuting dy and dx alike commutes too.
    const Array dy = randn({2, 5, 8}, 52);
    Tensor xi(x, true), xh(take_last_axis(x, order), true);
    rotary_embedding(xi, positions, 10000.0, RopeStyle::interleaved).backward(dy);
    rotary_embedding(xh, positions, 10000.0, RopeStyle::half_split).backward(take_last_axis(dy, order));
    CHECK(allclose(xh.grad(), take_last_axis(xi.grad(), order), 1e-14, 1e-15));
  }

  SECTION("q/k weight rows permuted per head: interleaved and half_split give the same attention scores") {
    // Meta's wq, wk (out = heads·Dh rows, in = d_model columns) with interleaved RoPE, against
    // HF's converted weights (rows permuted within each head by `order`) with half_split RoPE.
    const std::size_t heads = 2, Dh = 8, d_model = 6, S = 5;
    const Array x = randn({S, d_model}, 53), wq = randn({heads * Dh, d_model}, 54), wk = randn({heads * Dh, d_model}, 55);
    auto permuted_rows = [&](const Array& w) {
      Array out = w;
      for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t j = 0; j < Dh; ++j) xt::row(out, h * Dh + j) = xt::row(w, h * Dh + order[j]);
      return out;
    };
    auto scores = [&](const Array& wq_, const Array& wk_, RopeStyle style) {
      const Array q = matmul(constant(x), constant(xt::transpose(wq_))).value();  // (S, heads·Dh)
      const Array k = matmul(constant(x), constant(xt::transpose(wk_))).value();
      Array out = Array::from_shape({heads, S, S});
      for (std::size_t h = 0; h < heads; ++h) {
        const Array qh = xt::view(q, xt::all(), xt::range(h * Dh, (h + 1) * Dh));
        const Array kh = xt::view(k, xt::all(), xt::range(h * Dh, (h + 1) * Dh));
        const Array qr = rope_values(qh, positions, 10000.0, style), kr = rope_values(kh, positions, 10000.0, style);
        for (std::size_t m = 0; m < S; ++m)
          for (std::size_t n = 0; n < S; ++n)
            out(h, m, n) = dot(Array(xt::row(qr, m)), Array(xt::row(kr, n)));
      }
      return out;
    };
    const Array meta = scores(wq, wk, RopeStyle::interleaved);
    const Array hf = scores(permuted_rows(wq), permuted_rows(wk), RopeStyle::half_split);
    CHECK(allclose(hf, meta, 1e-12, 1e-13));
    // Unconverted weights under the other style give other scores: the permutation matters.
    CHECK(!allclose(scores(wq, wk, RopeStyle::half_split), meta, 1e-6, 1e-6));
  }
}

TEST_CASE("rotary_embedding: PyTorch parity, Hugging Face half_split and Meta interleaved", "[rope][parity]") {
  const std::pair<const char*, RopeStyle> cases[] = {{"rope_half_split", RopeStyle::half_split},
                                                     {"rope_interleaved", RopeStyle::interleaved}};
  for (const auto& [name, style] : cases) {
    INFO("fixture " << name);
    parity::Fixture f(name, "llm");
    std::vector<std::int64_t> positions;
    for (double p : f.load("positions")) positions.push_back(static_cast<std::int64_t>(p));
    const double base = f.load("base")(0);
    Tensor x(f.load("x"), true, "x");
    Tensor y = rotary_embedding(x, positions, base, style);
    y.backward(f.load("dy"));
    parity::check_close(std::string(name) + " y", y.value(), f.load("y"), 1e-9);
    parity::check_close(std::string(name) + " dx", x.grad(), f.load("dx"), 1e-9);
  }
}

TEST_CASE("rotary_embedding: bad input is a clear error", "[rope][errors]") {
  Tensor x = param({2, 3, 5}, 61, "x");
  REQUIRE_THROWS_WITH(rotary_embedding(x, position_range(0, 3)),
                      Catch::Contains("rotary_embedding") && Catch::Contains("D even") &&
                          Catch::Contains("'x' (2, 3, 5)") && Catch::Contains("D = 5"));
  Tensor x4 = param({2, 3, 4}, 62, "x");
  REQUIRE_THROWS_WITH(rotary_embedding(x4, position_range(0, 4)),
                      Catch::Contains("rotary_embedding: positions has length 4") && Catch::Contains("'x' (2, 3, 4)") &&
                          Catch::Contains("S = 3"));
  REQUIRE_THROWS_WITH(rotary_embedding(x4, position_range(0, 3), 0.0),
                      Catch::Contains("rotary_embedding: invalid base=0") && Catch::Contains("> 0"));
  REQUIRE_THROWS_WITH(rotary_embedding(x4, position_range(0, 3), -10.0), Catch::Contains("invalid base=-10"));
  REQUIRE_THROWS_WITH(rotary_embedding(x4, position_range(0, 3), std::nan("")), Catch::Contains("invalid base=nan"));
  REQUIRE_THROWS_WITH(rotary_embedding(param({4}, 63, "v"), position_range(0, 4)),
                      Catch::Contains("(..., S, D)") && Catch::Contains("'v' (4)"));
  REQUIRE_THROWS_WITH(composed::rotary_embedding(x, position_range(0, 3)),
                      Catch::Contains("composed::rotary_embedding") && Catch::Contains("D even"));
  REQUIRE_THROWS_WITH(rope_half_split_order(5), Catch::Contains("rope_half_split_order") && Catch::Contains("D = 5"));
  // Negative positions are allowed (a rotation by a negative angle).
  CHECK_NOTHROW(rotary_embedding(x4, position_range(-3, 3)));
}
