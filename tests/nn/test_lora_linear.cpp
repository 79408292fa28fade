// nn::LoRALinear: frozen base, init, forward formula, merge/unmerge, gradients to A and B only,
// gradcheck, errors, PyTorch parity (tools/llm_lora_fixtures.py).
#include "nn/nn_common.hpp"
#include "parity/parity_fixture.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using tapegrad::testing::names;
using tapegrad::testing::param;

namespace {

// x Wᵀ + b + (alpha/r)(x Aᵀ)Bᵀ for x (N, in), written with plain loops.
Array lora_reference(const Array& x, const LoRALinear& m) {
  const Array& w = m.base_layer->weight.value();
  const Array& b = m.base_layer->bias.value();
  const Array& a = m.lora_A->weight.value();
  const Array& bb = m.lora_B->weight.value();
  Array y = Array::from_shape({x.shape()[0], m.out_features});
  for (std::size_t n = 0; n < x.shape()[0]; ++n)
    for (std::size_t o = 0; o < m.out_features; ++o) {
      double base = b(o);
      for (std::size_t i = 0; i < m.in_features; ++i) base += x(n, i) * w(o, i);
      double low_rank = 0.0;
      for (std::size_t k = 0; k < m.r; ++k) {
        double xa = 0.0;
        for (std::size_t i = 0; i < m.in_features; ++i) xa += x(n, i) * a(k, i);
        low_rank += xa * bb(o, k);
      }
      y(n, o) = base + m.alpha / static_cast<double>(m.r) * low_rank;
    }
  return y;
}

}  // namespace

TEST_CASE("LoRALinear: PEFT's names, frozen base, A Kaiming-uniform, B zero", "[nn][lora]") {
  Generator gen(3);
  LoRALinear lora(8, 6, 2, 4.0, true, gen);
  CHECK(names(lora.named_parameters()) ==
        std::vector<std::string>{"base_layer.weight", "base_layer.bias", "lora_A.weight", "lora_B.weight"});
  CHECK(lora.lora_A->weight.shape() == Shape{2, 8});
  CHECK(lora.lora_B->weight.shape() == Shape{6, 2});
  CHECK_FALSE(lora.base_layer->weight.requires_grad());
  CHECK_FALSE(lora.base_layer->bias.requires_grad());
  CHECK(lora.lora_A->weight.requires_grad());
  CHECK(lora.lora_B->weight.requires_grad());
  CHECK(lora.trainable_parameters().size() == 2);
  CHECK(lora.scaling == 2.0);
  // kaiming_uniform_(a = √5) on (r, in): U(−1/√in, 1/√in).
  const double bound = 1.0 / std::sqrt(8.0);
  CHECK(xt::amax(xt::abs(lora.lora_A->weight.value()))() <= bound);
  CHECK(xt::amax(xt::abs(lora.lora_A->weight.value()))() > 0.5 * bound);
  CHECK(lora.lora_B->weight.value() == Array(xt::zeros<double>({6, 2})));
  // At init the layer is its base Linear.
  Tensor x = param({3, 8}, 1, "x");
  CHECK(lora(x).value() == lora.base_layer->forward(x).value());
}

TEST_CASE("LoRALinear: forward is x W^T + b + (alpha/r)(x A^T) B^T", "[nn][lora]") {
  Generator gen(4);
  LoRALinear lora(5, 4, 2, 3.0, true, gen);
  lora.lora_B->weight.mutable_value() = tapegrad::testing::randn({4, 2}, 2);
  Tensor x = param({3, 5}, 3, "x");
  CHECK(tapegrad::testing::allclose(lora(x).value(), lora_reference(x.value(), lora)));
}

TEST_CASE("LoRALinear: gradients reach A and B only, gradcheck of x, A, B", "[nn][lora]") {
  Generator gen(5);
  LoRALinear lora(4, 3, 2, 8.0, true, gen);
  lora.lora_B->weight.mutable_value() = tapegrad::testing::randn({3, 2}, 6);  // B = 0 would hide A's gradient
  Tensor x = param({2, 4}, 7, "x");
  sum(lora(x)).backward();
  CHECK_FALSE(lora.base_layer->weight.has_grad());
  CHECK_FALSE(lora.base_layer->bias.has_grad());
  CHECK(lora.lora_A->weight.has_grad());
  CHECK(lora.lora_B->weight.has_grad());
  REQUIRE_GRADCHECK([&lora](auto& in) { return lora(in[0]); },
                    (std::vector<Tensor>{param({2, 4}, 8, "x"), lora.lora_A->weight, lora.lora_B->weight}));
  REQUIRE_GRADCHECK([&lora](auto& in) { return lora(in[0]); }, std::vector<Tensor>{param({2, 3, 4}, 9, "x")});
}

TEST_CASE("LoRALinear: merge folds (alpha/r) B A into W, unmerge restores it", "[nn][lora]") {
  Generator gen(6);
  LoRALinear lora(6, 5, 3, 12.0, true, gen);
  lora.lora_B->weight.mutable_value() = tapegrad::testing::randn({5, 3}, 10);
  Tensor x = param({4, 6}, 11, "x");
  const Array before = lora(x).value();
  const Array weight_before = lora.base_layer->weight.value();
  lora.merge();
  CHECK(lora.is_merged());
  tapegrad::tape().clear();
  Tensor merged_y = lora(x);
  CHECK(tapegrad::tape().size() == 1);  // one linear entry
  CHECK(tapegrad::testing::allclose(merged_y.value(), before, 1e-12, 1e-12));
  REQUIRE_THROWS_WITH(lora.merge(), Catch::Contains("already merged"));
  lora.unmerge();
  CHECK_FALSE(lora.is_merged());
  const Array restored = lora.base_layer->weight.value();
  CHECK(xt::amax(xt::abs(restored - weight_before))() <= 1e-12);
  REQUIRE_THROWS_WITH(lora.unmerge(), Catch::Contains("not merged"));
}

TEST_CASE("LoRALinear: errors for r and alpha", "[nn][lora]") {
  REQUIRE_THROWS_WITH(LoRALinear(4, 3, 0, 1.0), Catch::Contains("LoRALinear") && Catch::Contains("r=0"));
  REQUIRE_THROWS_WITH(LoRALinear(4, 3, 4, 1.0), Catch::Contains("r=4") && Catch::Contains("min(in_features, out_features) = 3"));
  REQUIRE_THROWS_WITH(LoRALinear(4, 3, 2, 0.0), Catch::Contains("alpha=0") && Catch::Contains("> 0"));
  REQUIRE_THROWS_WITH(LoRALinear(4, 3, 2, -1.0), Catch::Contains("alpha=-1"));
  CHECK_NOTHROW(LoRALinear(4, 3, 3, 1.0));
}

TEST_CASE("LoRALinear: PyTorch parity (forward, dx, dA, dB, merged W)", "[nn][lora][parity]") {
  parity::Fixture f("lora", "llm");
  const Array config = f.load("config");
  LoRALinear lora(static_cast<std::size_t>(config(0)), static_cast<std::size_t>(config(1)),
                  static_cast<std::size_t>(config(2)), config(3));
  for (auto& [name, t] : lora.named_parameters()) t.mutable_value() = f.load("param." + name);
  Tensor x(f.load("input"), true, "x");
  Tensor y = lora(x);
  parity::check_close("output", y.value(), f.load("output"), 1e-9);
  y.backward(f.load("dy"));
  parity::check_close("grad_input", x.grad(), f.load("grad_input"), 1e-9);
  parity::check_close("grad lora_A", lora.lora_A->weight.grad(), f.load("grad.lora_A.weight"), 1e-9);
  parity::check_close("grad lora_B", lora.lora_B->weight.grad(), f.load("grad.lora_B.weight"), 1e-9);
  lora.merge();
  parity::check_close("merged weight", lora.base_layer->weight.value(), f.load("merged_weight"), 1e-9);
}
