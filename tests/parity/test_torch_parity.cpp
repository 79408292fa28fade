// Parity with PyTorch: every layer's output, input gradient, parameter
// gradients and updated running statistics against fixtures that
// tools/torch_fixtures.py wrote with torch 1.13 in float64
// (tests/fixtures/layers/README.md). Each case runs forward, then
// backward(dy) with the saved random dy, and compares to 1e-10 relative.
//
// The fixture's file names are PyTorch's state_dict keys ("param.ffn.fc1.weight.npy"),
// and the parameters are copied into tapegrad's module by its own names, so
// the key sets must be equal: a renamed parameter fails here too.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "parity/parity_fixture.hpp"

namespace {

using namespace tapegrad;
// Must equal the constants at the top of tools/torch_fixtures.py.
constexpr std::size_t kFeatures = 8, kHidden = 32, kLinearOut = 5, kDeepNormBlocks = 6;
constexpr double kLayerNormEps = 1e-5, kBatchNormEps = 1e-5, kBatchNormMomentum = 0.1;

using parity::check_close;
using parity::Fixture;

std::vector<std::string> sorted_keys(const NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& [name, t] : named) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

// The leaves and buffers a case runs on, by state_dict key.
using TensorMap = std::map<std::string, Tensor>;

// Runs y = forward(x), y.backward(dy), and checks y, every gradient, and the
// buffers the forward pass may update. `buffers_to_check` are the keys whose
// "buffer_after.<key>" is compared (num_batches_tracked only for modules).
void check_forward_backward(const Fixture& f, const std::function<Tensor(const Tensor&)>& forward,
                            const TensorMap& params, const TensorMap& buffers,
                            const std::vector<std::string>& buffers_to_check) {
  Tensor x(f.load("input"), true, "x");
  Tensor y = forward(x);
  check_close("output", y.value(), f.load("output"));
  y.backward(f.load("dy"));
  check_close("grad of the input", x.grad(), f.load("grad_input"));
  for (const auto& [name, p] : params) {
    INFO("parameter " << name);
    REQUIRE(p.has_grad());
    check_close("grad of " + name, p.grad(), f.load("grad." + name));
  }
  for (const auto& name : buffers_to_check) check_close(name + " after forward", buffers.at(name).value(),
                                                        f.load("buffer_after." + name));
}

// Copies the fixture's "<prefix><key>.npy" into the module's tensors of the same
// keys through mutable_value(), so the module keeps its own leaves; returns them by key.
TensorMap copy_in(const NamedTensors& named, const Fixture& f, const std::string& prefix) {
  REQUIRE(sorted_keys(named) == f.keys(prefix));  // tapegrad's state_dict keys are PyTorch's
  TensorMap out;
  for (auto [name, t] : named) {
    const Array value = f.load(prefix + name);
    INFO(prefix << name);
    REQUIRE(t.shape() == value.shape());
    t.mutable_value() = value;
    out.emplace(name, t);
  }
  return out;
}

// Loads PyTorch's parameters and buffers into `module`, then checks forward and backward.
void check_module(nn::Module& module, const Fixture& f) {
  const TensorMap params = copy_in(module.named_parameters(), f, "param.");
  const TensorMap buffers = copy_in(module.named_buffers(), f, "buffer.");
  check_forward_backward(f, [&](const Tensor& x) { return module(x); }, params, buffers, f.keys("buffer."));
}

// The functional op on fresh tensors loaded from the fixture: parameters as leaves
// requiring grad, buffers as plain tensors (the op updates running stats in place).
void check_op(const Fixture& f, const std::function<Tensor(const Tensor&, const TensorMap&)>& op) {
  TensorMap params, buffers;
  for (const auto& name : f.keys("param.")) params.emplace(name, Tensor(f.load("param." + name), true, name));
  for (const auto& name : f.keys("buffer.")) buffers.emplace(name, Tensor(f.load("buffer." + name), false, name));
  TensorMap all = params;
  all.insert(buffers.begin(), buffers.end());
  std::vector<std::string> stats;  // the op has no num_batches_tracked: the module counts
  for (const auto& name : f.keys("buffer."))
    if (name != "num_batches_tracked") stats.push_back(name);
  check_forward_backward(f, [&](const Tensor& x) { return op(x, all); }, params, buffers, stats);
}

const Shape kLastAxis{kFeatures};

void check_layer_norm(const std::string& name) {
  const Fixture f(name);
  SECTION("nn::LayerNorm") {
    nn::LayerNorm m(kFeatures, kLayerNormEps);
    check_module(m, f);
  }
  SECTION("layer_norm (fused)") {
    check_op(f, [](const Tensor& x, const TensorMap& t) {
      return layer_norm(x, kLastAxis, t.at("weight"), t.at("bias"), kLayerNormEps);
    });
  }
  SECTION("composed::layer_norm") {
    check_op(f, [](const Tensor& x, const TensorMap& t) {
      return composed::layer_norm(x, kLastAxis, t.at("weight"), t.at("bias"), kLayerNormEps);
    });
  }
}

void check_rms_norm(const std::string& name) {
  const Fixture f(name);
  SECTION("nn::RMSNorm (default eps)") {
    nn::RMSNorm m(kFeatures);
    check_module(m, f);
  }
  SECTION("rms_norm (fused)") {
    check_op(f, [](const Tensor& x, const TensorMap& t) { return rms_norm(x, kLastAxis, t.at("weight")); });
  }
  SECTION("composed::rms_norm") {
    check_op(f, [](const Tensor& x, const TensorMap& t) { return composed::rms_norm(x, kLastAxis, t.at("weight")); });
  }
}

void check_batch_norm(const std::string& name, bool training) {
  const Fixture f(name);
  SECTION("nn::BatchNorm1d") {
    nn::BatchNorm1d m(kFeatures, kBatchNormEps, kBatchNormMomentum);
    m.train(training);
    check_module(m, f);
  }
  SECTION("batch_norm (fused)") {
    check_op(f, [training](const Tensor& x, const TensorMap& t) {
      return batch_norm(x, t.at("running_mean"), t.at("running_var"), t.at("weight"), t.at("bias"), training,
                        kBatchNormMomentum, kBatchNormEps);
    });
  }
  SECTION("composed::batch_norm") {
    check_op(f, [training](const Tensor& x, const TensorMap& t) {
      return composed::batch_norm(x, t.at("running_mean"), t.at("running_var"), t.at("weight"), t.at("bias"),
                                  training, kBatchNormMomentum, kBatchNormEps);
    });
  }
}

void check_ffn(const std::string& name, const std::string& activation) {
  nn::FFN m(kFeatures, kHidden, activation);
  check_module(m, Fixture(name));
}

void check_residual(nn::Placement placement) {
  nn::ResidualBlockOptions options;
  options.sublayer_name = "ffn";  // PyTorch's state_dict keys: blocks.3.ffn.fc1.weight
  options.eps = kLayerNormEps;
  if (placement == nn::Placement::deepnorm) {
    // β only scales the weights at construction; the fixture's weights are already scaled and overwrite them.
    const auto c = nn::deepnorm_constants(kDeepNormBlocks);
    options.deepnorm_alpha = c.alpha;
    options.deepnorm_beta = c.beta;
  }
  nn::ResidualBlock block(std::make_shared<nn::FFN>(kFeatures, kHidden, "relu"), placement, kFeatures, options);
  check_module(block, Fixture("residual_" + nn::to_string(placement)));
}

}  // namespace

TEST_CASE("parity: layer_norm 2-D (batch, features)", "[parity]") { check_layer_norm("layer_norm_2d"); }
TEST_CASE("parity: layer_norm 3-D (batch, seq, features)", "[parity]") { check_layer_norm("layer_norm_3d"); }
TEST_CASE("parity: rms_norm 2-D", "[parity]") { check_rms_norm("rms_norm_2d"); }
TEST_CASE("parity: rms_norm 3-D", "[parity]") { check_rms_norm("rms_norm_3d"); }
TEST_CASE("parity: batch_norm train 2-D, running stats updated", "[parity]") {
  check_batch_norm("batch_norm_train_2d", true);
}
TEST_CASE("parity: batch_norm train 3-D (features last), running stats updated", "[parity]") {
  check_batch_norm("batch_norm_train_3d", true);
}
TEST_CASE("parity: batch_norm eval 2-D, given running stats", "[parity]") {
  check_batch_norm("batch_norm_eval_2d", false);
}
TEST_CASE("parity: batch_norm eval 3-D (features last), given running stats", "[parity]") {
  check_batch_norm("batch_norm_eval_3d", false);
}

TEST_CASE("parity: linear", "[parity]") {
  const Fixture f("linear");
  SECTION("nn::Linear") {
    nn::Linear m(kFeatures, kLinearOut);
    check_module(m, f);
  }
  SECTION("linear") {
    check_op(f, [](const Tensor& x, const TensorMap& t) { return linear(x, t.at("weight"), t.at("bias")); });
  }
}

TEST_CASE("parity: FFN with ReLU", "[parity]") { check_ffn("ffn_relu", "relu"); }
TEST_CASE("parity: FFN with exact GELU", "[parity]") { check_ffn("ffn_gelu", "gelu"); }

TEST_CASE("parity: ResidualBlock post", "[parity]") { check_residual(nn::Placement::post); }
TEST_CASE("parity: ResidualBlock pre", "[parity]") { check_residual(nn::Placement::pre); }
TEST_CASE("parity: ResidualBlock deepnorm (N = 6)", "[parity]") { check_residual(nn::Placement::deepnorm); }
TEST_CASE("parity: ResidualBlock rezero (alpha = 0.3)", "[parity]") { check_residual(nn::Placement::rezero); }
TEST_CASE("parity: ResidualBlock sandwich", "[parity]") { check_residual(nn::Placement::sandwich); }
TEST_CASE("parity: ResidualBlock none", "[parity]") { check_residual(nn::Placement::none); }

// ---- attention, embeddings, Transformer blocks (tools/torch_attention_fixtures.py) ----

namespace {

// Must equal the constants at the top of tools/torch_attention_fixtures.py.
constexpr std::size_t kHeads = 2, kNumEmbeddings = 10;

void check_attention_op(const std::string& name, bool causal) {
  const Fixture f(name);  // input = q; k and v stored as "parameters" so that their gradients are checked
  SECTION("scaled_dot_product_attention (fused)") {
    check_op(f, [causal](const Tensor& q, const TensorMap& t) {
      return scaled_dot_product_attention(q, t.at("k"), t.at("v"), causal);
    });
  }
  SECTION("composed::scaled_dot_product_attention") {
    check_op(f, [causal](const Tensor& q, const TensorMap& t) {
      return composed::scaled_dot_product_attention(q, t.at("k"), t.at("v"), causal);
    });
  }
}

void check_transformer(nn::Placement placement, bool causal, const std::string& name) {
  nn::TransformerBlockOptions options;
  options.hidden = kHidden;
  options.causal = causal;
  options.residual.eps = kLayerNormEps;
  if (placement == nn::Placement::deepnorm) {  // the fixture's weights come already scaled by β
    const auto c = nn::deepnorm_constants(kDeepNormBlocks);
    options.residual.deepnorm_alpha = c.alpha;
    options.residual.deepnorm_beta = c.beta;
  }
  nn::TransformerBlock block(kFeatures, kHeads, placement, options);
  check_module(block, Fixture(name));
}

}  // namespace

TEST_CASE("parity: scaled_dot_product_attention (B, H, S, Dh), Dv != Dh", "[parity][attention]") {
  check_attention_op("sdpa", false);
}
TEST_CASE("parity: scaled_dot_product_attention causal", "[parity][attention]") {
  check_attention_op("sdpa_causal", true);
}
TEST_CASE("parity: scaled_dot_product_attention causal, 3-D, fewer queries than keys", "[parity][attention]") {
  check_attention_op("sdpa_causal_rect", true);
}

TEST_CASE("parity: SelfAttention = nn.MultiheadAttention(batch_first) on (x, x, x)", "[parity][attention]") {
  for (const bool causal : {false, true}) {
    DYNAMIC_SECTION("causal " << causal) {
      nn::SelfAttention m(kFeatures, kHeads, causal);
      check_module(m, Fixture(causal ? "self_attention_causal" : "self_attention"));
    }
  }
}

TEST_CASE("parity: Embedding, repeated indices add their gradients", "[parity][embedding]") {
  const Fixture f("embedding");
  nn::Embedding m(kNumEmbeddings, kFeatures);
  const TensorMap params = copy_in(m.named_parameters(), f, "param.");
  Tensor y = m(Tensor(f.load("input")));
  check_close("output", y.value(), f.load("output"));
  y.backward(f.load("dy"));
  check_close("grad of weight", params.at("weight").grad(), f.load("grad.weight"));
}

TEST_CASE("parity: TransformerBlock in every placement (deepnorm N = 6, rezero alpha = 0.3)", "[parity][transformer]") {
  for (const nn::Placement p : nn::all_placements()) {
    DYNAMIC_SECTION("placement " << nn::to_string(p)) { check_transformer(p, false, "transformer_" + nn::to_string(p)); }
  }
}
TEST_CASE("parity: TransformerBlock pre, causal", "[parity][transformer]") {
  check_transformer(nn::Placement::pre, true, "transformer_pre_causal");
}

// ---- the LLM parts: tests/fixtures/llm, written by tools/llm_parts_fixtures.py ----

TEST_CASE("parity: silu = F.silu, far tails included", "[parity][silu]") {
  const Fixture f("silu", "llm");
  check_forward_backward(f, [](const Tensor& x) { return silu(x); }, {}, {}, {});
}

TEST_CASE("parity: nn::FFN swiglu = Hugging Face's LlamaMLP (gate_proj, up_proj, down_proj)", "[parity][swiglu]") {
  const Fixture f("swiglu_ffn", "llm");
  nn::FFN m(kFeatures, 24, "swiglu");  // hidden 24: tools/llm_parts_fixtures.py
  check_module(m, f);
}

TEST_CASE("parity: cross_entropy with ignore_index and label_smoothing = F.cross_entropy", "[parity][cross_entropy]") {
  for (const char* name : {"cross_entropy_2d", "cross_entropy_3d", "cross_entropy_plain"}) {
    DYNAMIC_SECTION(name) {
      const Fixture f(name, "llm");
      const Array stored_targets = f.load("targets"), options = f.load("options");
      std::vector<std::int64_t> targets;
      for (const double t : stored_targets) targets.push_back(static_cast<std::int64_t>(t));
      const CrossEntropyOptions o{static_cast<std::int64_t>(options(0)), options(1)};
      Tensor logits(f.load("input"), true, "logits");
      Tensor loss = cross_entropy(logits, targets, o);
      check_close("loss", loss.value(), f.load("output"));
      loss.backward();
      check_close("grad of the logits", logits.grad(), f.load("grad_input"));
      if (std::string(name) == "cross_entropy_plain") {  // the two-argument form: PyTorch's defaults too
        Tensor plain(f.load("input"), true, "logits");
        Tensor plain_loss = cross_entropy(plain, targets);
        check_close("loss (two-argument form)", plain_loss.value(), f.load("output"));
        plain_loss.backward();
        check_close("grad (two-argument form)", plain.grad(), f.load("grad_input"));
      }
    }
  }
}
