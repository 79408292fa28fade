// nn::FFN(d, hidden, "swiglu"): LLaMA's gated MLP, its names, width, gradcheck and errors.
#include "nn/nn_common.hpp"

#include <optional>

using namespace tapegrad;
using namespace tapegrad::nn;
using tapegrad::testing::names;
using tapegrad::testing::param;
using tapegrad::testing::require_module_gradcheck;

TEST_CASE("llama_hidden_size: Meta's 2/3 · 4d rounded up to multiple_of", "[nn][ffn][swiglu]") {
  CHECK(llama_hidden_size(4096) == 11008);        // LLaMA-7B: int(2·16384/3) = 10922 -> 43·256
  CHECK(llama_hidden_size(4096, 256) == 11008);
  CHECK(llama_hidden_size(5120) == 13824);        // LLaMA-13B
  CHECK(llama_hidden_size(8192, 4096, 1.3) == 28672);  // Llama-2-70B / Llama-3-70B: int(1.3·21845) = 28398 -> 7·4096
  CHECK(llama_hidden_size(4096, 1024, 1.3) == 14336);  // Llama-3-8B: int(1.3·10922) = 14198 -> 14·1024
  CHECK(llama_hidden_size(16, 8) == 48);          // int(128/3) = 42 -> 48
  CHECK(llama_hidden_size(8, 8) == 24);           // int(64/3) = 21 -> 24
  CHECK(llama_hidden_size(12, 1) == 32);          // multiple_of 1: exactly int(2·48/3)
  CHECK(llama_hidden_size(16, 256) == 256);       // a tiny model with Meta's default: mostly padding
  REQUIRE_THROWS_WITH(llama_hidden_size(16, 0), Catch::StartsWith("llama_hidden_size: multiple_of") &&
                                                    Catch::Contains("got 0"));
  REQUIRE_THROWS_WITH(llama_hidden_size(16, 8, -1.0),
                      Catch::StartsWith("llama_hidden_size: ffn_dim_multiplier must be > 0"));
}

TEST_CASE("FFN swiglu: HF LlamaMLP's names, no biases, default width, gradcheck", "[nn][ffn][swiglu]") {
  Generator gen(7);
  FFN ffn(8, 0, "swiglu", gen);
  CHECK(ffn.hidden == 24);  // llama_hidden_size(8, 8)
  CHECK(ffn.activation == Activation::swiglu);
  CHECK(names(ffn.named_parameters()) ==
        std::vector<std::string>{"gate_proj.weight", "up_proj.weight", "down_proj.weight"});
  CHECK(ffn.gate_proj->weight.shape() == Shape{24, 8});
  CHECK(ffn.up_proj->weight.shape() == Shape{24, 8});
  CHECK(ffn.down_proj->weight.shape() == Shape{8, 24});
  CHECK(ffn.fc1 == nullptr);
  CHECK(ffn.fc2 == nullptr);
  CHECK(ffn.to_string().find("activation=swiglu") != std::string::npos);

  FFN small(4, 6, "swiglu", gen);
  require_module_gradcheck(small, param({2, 3, 4}, 31, "x"));
  require_module_gradcheck(small, param({5, 4}, 32, "x"));
}

TEST_CASE("FFN swiglu: y = down(silu(gate x) ⊙ up x) by hand, the gate is the one through silu", "[nn][ffn][swiglu]") {
  FFN ffn(2, 2, "swiglu");
  ffn.gate_proj->weight.mutable_value() = Array{{1.0, 0.0}, {0.0, 1.0}};  // gate = x
  ffn.up_proj->weight.mutable_value() = Array{{2.0, 0.0}, {0.0, -1.0}};   // up = (2 x0, −x1)
  ffn.down_proj->weight.mutable_value() = Array{{1.0, 1.0}, {0.0, 1.0}};  // y = (a0 + a1, a1)
  const Array x{{1.0, 3.0}};
  const Tensor y = ffn(Tensor(x));
  const double a0 = 0.7310585786300049 * 1.0 * 2.0;                // silu(1) · 2
  const double a1 = 3.0 / (1.0 + std::exp(-3.0)) * -3.0;           // silu(3) · (−3)
  CHECK(y.value()(0, 0) == Approx(a0 + a1).epsilon(1e-15));
  CHECK(y.value()(0, 1) == Approx(a1).epsilon(1e-15));
  // Four entries: gate_proj, up_proj, swiglu, down_proj (the same with use_composed()).
  tape().clear();
  ffn(param({1, 2}, 33));
  REQUIRE(tape().size() == 4);
  CHECK(tape()[2].op == "swiglu");
  tape().clear();
}
