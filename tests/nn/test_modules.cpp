// nn modules: parameters and names, train/eval, init, gradchecks of every parameter.
#include "nn/nn_common.hpp"

using namespace tapegrad;
using namespace tapegrad::nn;
using tapegrad::testing::names;
using tapegrad::testing::param;
using tapegrad::testing::require_module_gradcheck;

TEST_CASE("Linear: PyTorch's default init bounds, names, gradcheck", "[nn][linear]") {
  Generator gen(1);
  Linear lin(16, 64, true, gen);
  CHECK(lin.weight.shape() == Shape{64, 16});
  CHECK(names(lin.named_parameters()) == std::vector<std::string>{"weight", "bias"});
  const double bound = 1.0 / std::sqrt(16.0);
  CHECK(xt::amax(xt::abs(lin.weight.value()))() <= bound);
  CHECK(xt::amax(xt::abs(lin.bias.value()))() <= bound);
  CHECK(xt::amax(xt::abs(lin.weight.value()))() > 0.9 * bound);  // really uniform over the range
  Linear small(3, 2, true, gen);
  require_module_gradcheck(small, param({4, 3}, 1, "x"));
  require_module_gradcheck(small, param({2, 4, 3}, 2, "x"));
  Linear no_bias(3, 2, false, gen);
  CHECK(no_bias.parameters().size() == 1);
  REQUIRE_THROWS_WITH(Linear(0, 2), Catch::Contains("positive"));
}

TEST_CASE("LayerNorm / RMSNorm modules: affine on and off, gradcheck", "[nn][layer_norm]") {
  LayerNorm ln(5);
  CHECK(ln.weight.value() == Array(xt::ones<double>({5})));
  CHECK(ln.parameters().size() == 2);
  ln.weight.mutable_value() = tapegrad::testing::randn({5}, 3);
  ln.bias.mutable_value() = tapegrad::testing::randn({5}, 4);
  require_module_gradcheck(ln, param({3, 5}, 5, "x"));
  require_module_gradcheck(ln, param({2, 3, 5}, 6, "x"));
  LayerNorm plain(5, 1e-5, /*elementwise_affine=*/false);
  CHECK(plain.parameters().empty());
  require_module_gradcheck(plain, param({3, 5}, 7, "x"));

  RMSNorm rms(5, 1e-6);
  rms.weight.mutable_value() = tapegrad::testing::randn({5}, 8);
  require_module_gradcheck(rms, param({2, 3, 5}, 9, "x"));
}

TEST_CASE("BatchNorm1d: buffers, train/eval, eval before training is defined", "[nn][batch_norm]") {
  BatchNorm1d bn(3);
  CHECK(names(bn.named_buffers()) == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  Tensor x = param({4, 3}, 10, "x");
  // Eval before any training: running stats are (0, 1), so y = x / sqrt(1 + eps).
  bn.eval();
  Tensor y0 = bn(x);
  CHECK(testing::allclose(y0.value(), x.value() / std::sqrt(1.0 + 1e-5)));
  bn.train();
  bn(x);
  CHECK(bn.num_batches_tracked.item() == 1.0);
  CHECK(bn.running_mean.value()(0) != 0.0);
  for (bool training : {true, false}) {
    bn.train(training);
    bn.weight.mutable_value() = tapegrad::testing::randn({3}, 11);
    require_module_gradcheck(bn, param({5, 3}, 12, "x"));
    require_module_gradcheck(bn, param({2, 3, 3}, 13, "x"));
  }
  tape().clear();
}

TEST_CASE("FFN: shapes, 4d default width, relu and gelu, gradcheck", "[nn][ffn]") {
  Generator gen(2);
  FFN ffn(4, 0, "relu", gen);
  CHECK(ffn.hidden == 16);
  CHECK(names(ffn.named_parameters()) == std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"});
  CHECK(ffn.fc1->weight.name() == "fc1.weight");
  CHECK(ffn(param({3, 4}, 1)).shape() == Shape{3, 4});
  require_module_gradcheck(ffn, param({3, 4}, 14, "x"));
  FFN gelu_ffn(4, 8, "gelu", gen);
  require_module_gradcheck(gelu_ffn, param({2, 3, 4}, 15, "x"));
  REQUIRE_THROWS_WITH(FFN(4, 8, "swish"), Catch::Contains("activation") && Catch::Contains("swish"));
  // The module runs the fused op: one tape entry, the same numbers as fc2(relu(fc1(x))).
  tape().clear();
  Tensor x = param({3, 4}, 16, "x");
  Tensor y = ffn(x);
  REQUIRE(tape().size() == 1);
  CHECK(tape()[0].op == "feed_forward");
  CHECK(y.value() == (*ffn.fc2)(relu((*ffn.fc1)(x))).value());
  tape().clear();
}

TEST_CASE("Module: nested names like a PyTorch state_dict, train/eval reaches children, zero_grad", "[nn][module]") {
  Generator gen(3);
  Sequential blocks;
  ResidualBlockOptions options;
  options.sublayer_name = "ffn";
  for (int i = 0; i < 2; ++i)
    blocks.append(std::make_shared<ResidualBlock>(std::make_shared<FFN>(4, 0, "relu", gen), Placement::post, 4, options));
  auto keys = names(blocks.state_dict());
  CHECK(keys.front() == "0.ffn.fc1.weight");
  CHECK(names(ResidualBlock(std::make_shared<FFN>(4, 0, "relu", gen), Placement::pre, 4).state_dict()).front() ==
        "sublayer.fc1.weight");  // the default name
  CHECK(std::find(keys.begin(), keys.end(), "1.norm.bias") != keys.end());
  CHECK(dynamic_cast<LayerNorm&>(*blocks.at<ResidualBlock>(1).norm).weight.name() == "1.norm.weight");
  blocks.eval();
  CHECK_FALSE(blocks.at<ResidualBlock>(0).sublayer->is_training());
  Tensor loss = sum(blocks(param({3, 4}, 16)));
  loss.backward();
  for (auto& p : blocks.parameters()) CHECK(p.has_grad());
  blocks.zero_grad();
  for (auto& p : blocks.parameters()) CHECK_FALSE(p.has_grad());
  CHECK(blocks.to_string().find("(0): ResidualBlock(placement=post") != std::string::npos);
  REQUIRE_THROWS_WITH(blocks[2], Catch::Contains("out of range"));
}
