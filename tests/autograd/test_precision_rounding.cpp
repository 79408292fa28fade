// round_to(x, fp32 | bf16 | fp16): against references that share no code with it:
//   - every fp16 and bf16 number decoded from its bit pattern, with the ties between neighbours
//     and the float64 numbers either side of them (each format's whole range, exhaustively);
//   - the CPU's own float64 -> float32 conversion (and GCC's _Float16 where it has one);
//   - PyTorch's .to(torch.float32 / bfloat16 / float16), committed by tools/precision_fixtures.py.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "helpers.hpp"

using namespace tapegrad;

namespace {

// Same float64, bit for bit (so -0 differs from +0), or both NaN.
bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  std::uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

// The value of a binary floating-point bit pattern with `exponent_bits` and `fraction_bits`.
double decode(std::uint32_t bits, int exponent_bits, int fraction_bits) {
  const std::uint32_t fraction = bits & ((1u << fraction_bits) - 1);
  const std::uint32_t exponent = (bits >> fraction_bits) & ((1u << exponent_bits) - 1);
  const bool negative = (bits >> (fraction_bits + exponent_bits)) & 1;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  double v;
  if (exponent == (1u << exponent_bits) - 1) v = fraction ? NAN : INFINITY;
  else if (exponent == 0) v = std::ldexp(fraction, 1 - bias - fraction_bits);  // subnormal (or zero)
  else v = std::ldexp((1u << fraction_bits) + fraction, static_cast<int>(exponent) - bias - fraction_bits);
  return negative ? -v : v;
}

struct Layout {
  Precision precision;
  int exponent_bits, fraction_bits;
};

// Walks every pair of neighbouring non-negative numbers of the format, from 0 up to the largest
// finite one and infinity (its bit pattern follows the largest finite one's): each number is
// itself, a tie goes to the neighbour whose pattern is even, anything else to the nearer one.
void check_every_neighbour_pair(const Layout& layout) {
  const std::uint32_t infinity_bits = ((1u << layout.exponent_bits) - 1) << layout.fraction_bits;
  std::size_t checked = 0;
  std::vector<double> inputs, expected;  // for round_in_place, the tuned path, below
  auto check = [&](double x, double want) {
    inputs.push_back(x);
    expected.push_back(want);
    return same_bits(round_to(x, layout.precision), want);
  };
  for (std::uint32_t k = 0; k < infinity_bits; ++k) {
    const double low = decode(k, layout.exponent_bits, layout.fraction_bits);
    const double high = decode(k + 1, layout.exponent_bits, layout.fraction_bits);
    // The tie with infinity is the tie with 2^(max_exponent+1), where the next binade would start.
    const double high_finite = std::isinf(high) ? 2 * low - decode(k - 1, layout.exponent_bits, layout.fraction_bits)
                                                : high;
    const double tie = (low + high_finite) / 2;  // exact: one more bit
    const double tie_goes_to = k % 2 == 0 ? low : high;
    for (double sign : {1.0, -1.0}) {
      INFO(format_of(layout.precision).name << " pattern " << k << ": " << low << " .. " << high << ", sign " << sign);
      REQUIRE(check(sign * low, sign * low));
      REQUIRE(check(sign * tie, sign * tie_goes_to));
      REQUIRE(check(sign * std::nextafter(tie, 0.0), sign * low));
      REQUIRE(check(sign * std::nextafter(tie, INFINITY), sign * high));
    }
    ++checked;
  }
  CHECK(checked == infinity_bits);
  // round_in_place (bit operations when TAPEGRAD_FAST_KERNELS is on) gives the same bits.
  Array values = xt::adapt(inputs, std::vector<std::size_t>{inputs.size()});
  round_in_place(values, layout.precision);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    INFO("round_in_place(" << inputs[i] << ")");
    REQUIRE(same_bits(values.data()[i], expected[i]));
  }
}

}  // namespace

TEST_CASE("round_to: every fp16 number, every tie between neighbours and the float64 numbers around it",
          "[precision]") {
  check_every_neighbour_pair({Precision::fp16, 5, 10});
}

TEST_CASE("round_to: every bf16 number, every tie between neighbours and the float64 numbers around it",
          "[precision]") {
  check_every_neighbour_pair({Precision::bf16, 8, 7});
}

TEST_CASE("round_to: the boundary cases, by name", "[precision]") {
  const double fp16_tiny = std::ldexp(1.0, -24);
  SECTION("fp16") {
    const Precision h = Precision::fp16;
    CHECK(format_of(h).max_finite() == 65504.0);
    CHECK(format_of(h).smallest_subnormal() == fp16_tiny);
    CHECK(format_of(h).smallest_normal() == std::ldexp(1.0, -14));
    CHECK(format_of(h).epsilon() == std::ldexp(1.0, -10));
    CHECK(round_to(65504.0, h) == 65504.0);
    CHECK(round_to(65519.99, h) == 65504.0);      // above 65504 but nearer to it than to 65536
    CHECK(round_to(65520.0, h) == INFINITY);      // the tie: 65536 is "even", and not finite
    CHECK(round_to(-1e6, h) == -INFINITY);
    CHECK(round_to(fp16_tiny, h) == fp16_tiny);   // subnormals are kept, not flushed
    CHECK(round_to(fp16_tiny / 2, h) == 0.0);     // tie between 0 (even) and the smallest
    CHECK(round_to(fp16_tiny * 0.51, h) == fp16_tiny);
    CHECK(round_to(1.5 * fp16_tiny, h) == 2 * fp16_tiny);
    CHECK(round_to(1023 * fp16_tiny, h) == 1023 * fp16_tiny);  // the largest subnormal
    CHECK(round_to(1.0 + std::ldexp(1.0, -11), h) == 1.0);     // tie, down to even
    CHECK(round_to(1.0 + 3 * std::ldexp(1.0, -11), h) == 1.0 + std::ldexp(1.0, -9));  // tie, up to even
    CHECK(round_to(10001.0, h) == 10000.0);       // spacing 8 at 1e4
    CHECK(round_to(0.1, h) == 0.0999755859375);
  }
  SECTION("bf16") {
    const Precision b = Precision::bf16;
    CHECK(format_of(b).max_finite() == 0x1.fep127);
    CHECK(format_of(b).smallest_subnormal() == std::ldexp(1.0, -133));
    CHECK(round_to(0x1.fep127, b) == 0x1.fep127);
    CHECK(round_to(0x1.ffp127, b) == INFINITY);  // the tie above the largest finite number
    CHECK(round_to(std::nextafter(0x1.ffp127, 0.0), b) == 0x1.fep127);
    CHECK(round_to(1e4 + 1, b) == 9984.0);       // spacing 64 at 1e4: 1e4 itself is not a bf16 number
    CHECK(round_to(1.0 + std::ldexp(1.0, -8), b) == 1.0);
    CHECK(round_to(std::ldexp(1.0, -134), b) == 0.0);
    CHECK(round_to(3.0 * std::ldexp(1.0, -134), b) == std::ldexp(1.0, -132));
  }
  SECTION("every format: NaN, infinities, zeros of both signs") {
    for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16}) {
      INFO(to_string(p));
      CHECK(std::isnan(round_to(NAN, p)));
      CHECK(std::isnan(round_to(-NAN, p)));
      CHECK(round_to(INFINITY, p) == INFINITY);
      CHECK(round_to(-INFINITY, p) == -INFINITY);
      CHECK(same_bits(round_to(0.0, p), 0.0));
      CHECK(same_bits(round_to(-0.0, p), -0.0));
      CHECK(same_bits(round_to(-1e-300, p), -0.0));  // rounded to zero, keeps its sign
      CHECK(same_bits(round_to(5e-324, p), 0.0));
      CHECK(round_to(1e300, p) == INFINITY);
    }
    CHECK(round_to(0.1, Precision::fp64) == 0.1);
  }
  SECTION("directly from float64: one rounding, not two through float32") {
    // 1 + 2^-11 + 2^-40 is just above the fp16 tie 1 + 2^-11: the correct result is 1 + 2^-10.
    // Through float32 it would first become the tie itself, then 1 (ties to even).
    const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    CHECK(round_to(x, Precision::fp16) == 1.0 + std::ldexp(1.0, -10));
    CHECK(round_to(round_to(x, Precision::fp32), Precision::fp16) == 1.0);
  }
}

TEST_CASE("round_to(fp32) equals the CPU's float64 -> float32 conversion on random bit patterns", "[precision]") {
  std::mt19937_64 rng(28);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = rng();
    if (i % 2) bits = (bits & 0x800FFFFFFFFFFFFFull) | ((0x380ull + rng() % 0x100) << 52);  // exponents near float's
    double x;
    std::memcpy(&x, &bits, 8);
    INFO("x = " << x);
    const double hardware = static_cast<double>(static_cast<float>(x));
    REQUIRE(same_bits(round_to(x, Precision::fp32), hardware));
    Array one = {x};
    round_in_place(one, Precision::fp32);
    REQUIRE(same_bits(one(0), hardware));
  }
}

#ifdef __FLT16_MAX__
TEST_CASE("round_to(fp16) equals GCC's float64 -> _Float16 conversion on random values", "[precision]") {
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> exponent(-27.0, 17.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::exp2(exponent(rng)) * (rng() % 2 ? 1.0 : -1.0);
    INFO("x = " << x);
    REQUIRE(same_bits(round_to(x, Precision::fp16), static_cast<double>(static_cast<_Float16>(x))));
  }
}
#endif

TEST_CASE("round_to against PyTorch's .to(float32 / bfloat16 / float16) (tests/fixtures/precision)",
          "[precision][parity]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(TAPEGRAD_FIXTURES_DIR) / "precision";
  INFO("fixtures in " << dir.string() << " (regenerate with /usr/bin/python3 tools/precision_fixtures.py)");
  const Array x = xt::load_npy<double>((dir / "inputs.npy").string());
  REQUIRE(x.size() > 5000);
  // torch converts float64 to float16 and bfloat16 through float32 (c10::Half(float)): twice
  // rounded. Where x is a float32 number that is one rounding, and must equal ours bit for bit;
  // everywhere it must equal ours applied twice. Some inputs must tell the two apart.
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16}) {
    const Array expected = xt::load_npy<double>((dir / ("torch_" + to_string(p) + ".npy")).string());
    REQUIRE(expected.size() == x.size());
    std::size_t exact = 0, twice_rounded_differs = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double xi = x.data()[i], torch_result = expected.data()[i];
      INFO(to_string(p) << ": x = " << xi << " (index " << i << "), torch gives " << torch_result);
      const double through_fp32 = round_to(round_to(xi, Precision::fp32), p);
      REQUIRE(same_bits(through_fp32, torch_result));
      if (std::isnan(xi) || round_to(xi, Precision::fp32) == xi) {
        REQUIRE(same_bits(round_to(xi, p), torch_result));
        ++exact;
      } else if (!same_bits(round_to(xi, p), through_fp32)) {
        ++twice_rounded_differs;
      }
    }
    INFO(to_string(p));
    CHECK(exact > 1000);
    if (p != Precision::fp32) CHECK(twice_rounded_differs > 50);
  }
}

TEST_CASE("round_in_place and round_ change values to the format's — parse_precision", "[precision]") {
  Array a = {1.0 + 1e-4, 65520.0, -1e-9, 3.0};
  round_in_place(a, Precision::fp16);
  CHECK(a(0) == 1.0);
  CHECK(a(1) == INFINITY);
  CHECK(same_bits(a(2), -0.0));
  CHECK(a(3) == 3.0);
  Tensor t(Array{0.1, 0.2});
  round_(t, Precision::bf16);
  CHECK(t.value()(0) == round_to(0.1, Precision::bf16));
  CHECK(parse_precision("x", "float16") == Precision::fp16);
  CHECK(parse_precision("x", "bf16") == Precision::bf16);
  CHECK(to_string(Precision::fp32) == "fp32");
  CHECK_THAT(testing::message_of([] { parse_precision("--precision", "fp8"); }),
             Catch::Contains("--precision: precision must be fp64, fp32, bf16 or fp16") &&
                 Catch::Contains("'fp8'"));
}
