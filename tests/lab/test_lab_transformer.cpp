// The lab's Transformer architecture (--arch transformer) and its options (--init, --norm,
// --activation, --ffn-mult, --heads, --seq-len): config, seeds, the copy task, the model's names
// and init, and that a small Pre-Norm stack learns the task.

#include <cmath>
#include <filesystem>
#include <set>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/lab/depth_model.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/replay.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/sweep.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace fs = std::filesystem;

namespace {

// A tiny Transformer run: 2 blocks of width 8 with 2 heads, sequences of 6 tokens.
RunConfig tiny_transformer(nn::Placement placement, std::size_t depth = 2) {
  RunConfig c = testing::tiny_run(placement, depth);
  c.arch = Arch::transformer;
  c.d = 8;
  c.heads = 2;
  c.seq_len = 6;
  return c;
}

bool has_name(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("transformer options: json round-trip, run_id and validation", "[lab]") {
  RunConfig c = tiny_transformer(nn::Placement::pre);
  c.init = Init::xavier;
  c.norm = NormKind::rms;
  c.activation = Activation::gelu;
  c.ffn_mult = 2;
  const std::string json = to_json(c);
  CHECK(run_config_from_json(json) == c);
  CHECK(json.find("\"arch\": \"transformer\"") != std::string::npos);
  CHECK(json.find("\"ffn_hidden\": 16") != std::string::npos);
  CHECK(run_id(c) == "pre_L2_d8_lr0.01_w0_T6_b8_s0_transformer_h2_S6_m2_xavier_rmsnorm_gelu");
  // A record written before these settings existed reads as the FFN lab with its defaults.
  std::string old_json = to_json(testing::tiny_run(nn::Placement::post));
  for (const Field& f : run_fields()) {
    if (!f.absent_means_default || f.omitted_at_default) continue;  // the omitted are not there at their default
    const auto at = old_json.find("\"" + f.key + "\"");
    REQUIRE(at != std::string::npos);
    old_json.erase(at, old_json.find('\n', at) + 1 - at);
  }
  CHECK(run_config_from_json(old_json) == testing::tiny_run(nn::Placement::post));

  auto refused = [&](auto change, const std::string& message) {
    RunConfig bad = tiny_transformer(nn::Placement::post);
    change(bad);
    CHECK_THROWS_WITH(validate(bad), Catch::Contains(message));
  };
  // A name that is no choice cannot reach a RunConfig: the one parser refuses it, listing the choices.
  CHECK_THROWS_WITH(parse_choice<Arch>("rnn"), "expected one of ffn, transformer, got 'rnn'");
  CHECK_THROWS_WITH(parse_choice<Init>("kaiming"), Catch::Contains("expected one of pytorch, xavier"));
  CHECK_THROWS_WITH(parse_choice<NormKind>("group"), Catch::Contains("expected one of layer, rms, batch"));
  CHECK_THROWS_WITH(parse_choice<Activation>("tanh"), Catch::Contains("expected one of relu, gelu"));
  CHECK(parse_choice<NormKind>("batch") == NormKind::batch);
  CHECK(to_string(NormKind::rms) == "rms");
  refused([](RunConfig& r) { r.heads = 3; }, "RunConfig: heads: 3 does not divide the width 8");
  refused([](RunConfig& r) { r.ffn_mult = 0; }, "ffn_mult: the FFN width multiplier must be between 1 and 64, got 0");
  refused([](RunConfig& r) { r.seq_len = RunLimits::max_seq_len + 1; },
          "seq_len: the sequence length must be between 1 and 1024, got 1025");
  // The sweep's description carries the settings too.
  SweepGrid g;
  g.placements = {nn::Placement::pre};
  g.lrs = {1e-2};
  g.warmups = {0};
  g.depths = {2};
  g.widths = {8};
  g.steps = {6};
  g.batches = {8};
  g.seeds = {0};
  g.base = c;
  CHECK(sweep_grid_from_json(to_json(g)) == g);
  CHECK(expand(g).at(0) == c);
}

TEST_CASE("transformer seeds: the init depends on what it draws, not on heads, norm or activation", "[lab]") {
  const RunConfig ffn = testing::tiny_run(nn::Placement::post);
  RunConfig a = tiny_transformer(nn::Placement::post);
  a.d = ffn.d;
  CHECK(init_seed(a) != init_seed(ffn));
  CHECK(data_seed(a) != data_seed(ffn));
  RunConfig b = a;
  b.heads = 4;
  b.norm = NormKind::batch;
  b.activation = Activation::gelu;
  CHECK(init_seed(b) == init_seed(a));
  CHECK(data_seed(b) == data_seed(a));
  for (auto change : {+[](RunConfig& r) { r.init = Init::xavier; }, +[](RunConfig& r) { r.ffn_mult = 2; },
                      +[](RunConfig& r) { r.seq_len = 7; }}) {
    RunConfig other = a;
    change(other);
    CHECK(init_seed(other) != init_seed(a));
  }
  RunConfig longer = a;
  longer.seq_len = 7;
  CHECK(data_seed(longer) != data_seed(a));
}

TEST_CASE("copy task: the label is the token two places back, uniform, so chance is ln K", "[lab]") {
  RunConfig c = tiny_transformer(nn::Placement::pre);
  c.seq_len = 16;
  c.train_size = 4096;
  const SequenceTask a = make_sequence_task(c), b = make_sequence_task(c);
  const bool same = a.train.x == b.train.x && a.eval.x == b.eval.x;
  CHECK(same);
  REQUIRE(a.train.x.shape() == Shape{4096, 16});
  REQUIRE(a.train.y.size() == 4096 * 16);
  CHECK(a.eval.labels_per_example() == 16);
  for (std::size_t i : {0, 5, 4095})
    for (std::size_t t = 0; t < 16; ++t)
      REQUIRE(a.train.y[i * 16 + t] == static_cast<std::int64_t>(a.train.x(i, (t + 14) % 16)));
  // The labels' entropy (the loss of the best constant prediction) is ln K to within sampling noise,
  // and above the collapse threshold 0.7 ln K.
  std::vector<double> count(c.classes, 0.0);
  for (auto y : a.train.y) count.at(static_cast<std::size_t>(y)) += 1.0;
  double entropy = 0.0;
  for (double n : count) entropy -= n / a.train.y.size() * std::log(n / a.train.y.size());
  CHECK(std::abs(entropy - chance_loss(c.classes)) < 1e-3);
  CHECK(chance_loss(8) == Approx(std::log(8.0)));
  CHECK(collapse_threshold(c.classes) < chance_loss(c.classes));
  RunConfig other = c;
  other.seed = 1;
  const bool differs = make_sequence_task(other).train.x != a.train.x;
  CHECK(differs);
  // A minibatch carries every position's label of its sequences.
  const Dataset batch = gather(a.train, {3, 1});
  CHECK(batch.y.size() == 32);
  CHECK(batch.y[16] == a.train.y[16]);
}

TEST_CASE("transformer model: PyTorch's state_dict names and the output projections", "[lab]") {
  Generator gen(0);
  const RunConfig c = tiny_transformer(nn::Placement::sandwich);
  DepthModel model(c, gen);
  std::vector<std::string> names;
  for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
  for (const char* name : {"token_embedding.weight", "position_embedding.weight", "blocks.0.attn.self_attn.in_proj_weight",
                           "blocks.0.attn.self_attn.in_proj_bias", "blocks.1.attn.self_attn.out_proj.weight",
                           "blocks.1.attn.norm_out.bias", "blocks.0.ffn.ffn.fc1.weight", "blocks.1.ffn.norm.weight",
                           "final_norm.weight", "head.bias"})
    CHECK(has_name(names, name));
  CHECK_FALSE(has_name(names, "input.weight"));
  const auto params = model.named_parameters();
  for (std::size_t l = 0; l < c.depth; ++l) {
    const auto projections = model.output_projections(l);
    REQUIRE(projections.size() == 2);
    CHECK(projections[0].first == "attn.self_attn.out_proj.weight");
    CHECK(projections[1].first == "ffn.ffn.fc2.weight");
    for (const auto& [name, tensor] : projections) {
      const std::string key = "blocks." + std::to_string(l) + "." + name;
      const auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == key; });
      REQUIRE(it != params.end());
      CHECK(&it->second.value() == &tensor->value());
    }
  }
  CHECK(&model.fc2_weight(1).value() == &model.output_projections(1)[1].second->value());
  // Logits: one row per position.
  Tensor tokens(Array{{0, 1, 2, 3, 4, 5}, {7, 7, 7, 0, 0, 0}});
  CHECK(model(tokens).shape() == Shape{12, 8});
  // The FFN stack has one output projection per block.
  Generator gen2(0);
  DepthModel ffn(testing::tiny_run(nn::Placement::post), gen2);
  const auto ffn_projections = ffn.output_projections(1);
  REQUIRE(ffn_projections.size() == 1);
  CHECK(ffn_projections[0].first == "ffn.fc2.weight");
  CHECK(ffn_projections[0].second == &ffn.fc2_weight(1));
}

TEST_CASE("init xavier: Xavier-uniform Linear weights, zero biases, DeepNorm's beta as the gain", "[lab]") {
  RunConfig c = tiny_transformer(nn::Placement::deepnorm, 3);
  c.init = Init::xavier;
  c.ffn_mult = 2;
  Generator gen(1);
  DepthModel model(c, gen);
  const double beta = nn::deepnorm_constants(3).beta;
  for (const auto& [name, p] : model.named_parameters()) {
    INFO(name);
    const Array& v = p.value();
    const double largest = xt::amax(xt::abs(v))();
    if (name.find("bias") != std::string::npos && name.find("norm") == std::string::npos) CHECK(largest == 0.0);
    const bool fc = name.find("fc1.weight") != std::string::npos || name.find("fc2.weight") != std::string::npos;
    if (fc || name.find("out_proj.weight") != std::string::npos) {
      const double bound = beta * std::sqrt(6.0 / static_cast<double>(v.shape()[0] + v.shape()[1]));
      CHECK(largest <= bound);
      CHECK(largest > 0.7 * bound);  // drawn from the whole interval, not a narrower one
    }
    if (name == "head.weight") CHECK(largest <= std::sqrt(6.0 / (8.0 + 8.0)));
  }
  // pytorch init keeps nn.Linear's default: biases are not zero.
  c.init = Init::pytorch;
  Generator gen2(1);
  DepthModel default_init(c, gen2);
  CHECK(xt::amax(xt::abs(default_init.head->bias.value()))() > 0.0);
}

TEST_CASE("transformer run: a Pre-Norm stack of 2 blocks learns the copy task", "[lab]") {
  RunConfig c;
  c.arch = Arch::transformer;
  c.placement = nn::Placement::pre;
  c.depth = 2;
  c.d = 16;
  c.heads = 2;
  c.seq_len = 8;
  c.lr = 1e-2;
  c.steps = 150;
  c.batch = 16;
  c.train_size = 512;
  c.eval_size = 128;
  const RunResult r = run_experiment(c);
  INFO("final eval loss " << r.eval_loss << ", chance " << chance_loss(c.classes));
  CHECK_FALSE(r.failure.failed);
  CHECK(r.log.evals.front().loss > 0.9 * chance_loss(c.classes));  // starts near chance
  CHECK(r.eval_loss < 0.25 * chance_loss(c.classes));             // ends well below it
  // Same config, same result, bit for bit.
  CHECK(run_experiment(c).log.losses() == r.log.losses());
}

TEST_CASE("transformer with BatchNorm: evaluation uses the running statistics, training the batch's", "[lab]") {
  RunConfig c = tiny_transformer(nn::Placement::post);
  c.norm = NormKind::batch;
  Generator gen(0);
  DepthModel model(c, gen);
  const SequenceTask task = make_sequence_task(c);
  const double first = mean_loss(model, task.eval);
  CHECK(model.is_training());  // mean_loss puts it back
  CHECK(mean_loss(model, task.eval) == first);  // eval mode: no running statistics updated
  const auto& norm = dynamic_cast<const nn::BatchNorm1d&>(*model.blocks->at<nn::TransformerBlock>(0).attn->norm);
  CHECK(norm.num_batches_tracked.value()(0) == 0.0);
}

TEST_CASE("transformer replay record: written, read back and replayed bit for bit", "[lab]") {
  const std::string dir = (fs::temp_directory_path() / "tapegrad_transformer_replay_test").string();
  fs::remove_all(dir);
  RunConfig c = tiny_transformer(nn::Placement::pre);
  c.norm = NormKind::rms;
  const RunResult r = write_replay(dir, c);
  for (const char* f : {"token_embedding.weight.npy", "position_embedding.weight.npy",
                        "blocks.1.attn.self_attn.in_proj_weight.npy", "blocks.0.ffn.ffn.fc2.bias.npy",
                        "final_norm.weight.npy"})
    CHECK(fs::exists(fs::path(dir) / f));
  CHECK_FALSE(fs::exists(fs::path(dir) / "final_norm.bias.npy"));  // RMSNorm has no bias
  const Replay rp = read_replay(dir);
  CHECK(rp.config == c);
  CHECK(rp.train.y == make_sequence_task(c).train.y);
  CHECK(replay_losses(dir) == r.log.losses());
  fs::remove_all(dir);
}

// The committed records of tools/make_replay_fixtures.sh: every placement of the Transformer, and the
// --init, --norm, --activation and --ffn-mult options on both architectures, against PyTorch to 1e-9.
TEST_CASE("replay parity with PyTorch: the Transformer's placements and the options", "[lab]") {
  const fs::path root = fs::path(TAPEGRAD_FIXTURES_DIR) / "replay";
  std::size_t checked = 0;
  for (auto p : nn::all_placements()) {
    testing::check_replay_parity(root / "transformer" / nn::to_string(p));
    ++checked;
  }
  for (const char* record : {"transformer_xavier_rms_gelu", "transformer_batchnorm", "ffn_xavier_batch_gelu"}) {
    testing::check_replay_parity(root / "options" / record);
    ++checked;
  }
  CHECK(checked == 9);
}

// --preset llama's block (nn::MultiheadAttention with RoPE and grouped key/value heads, RMSNorm, SwiGLU), Pre- and
// Post-Norm, and the interleaved RoPE with one key/value head: against Hugging Face's LlamaAttention and LlamaMLP
// written in tools/replay_torch.py, to 1e-9.
TEST_CASE("replay parity with PyTorch: the LLaMA-style block", "[lab]") {
  const fs::path root = fs::path(TAPEGRAD_FIXTURES_DIR) / "replay" / "llama";
  std::size_t checked = 0;
  for (const char* record : {"post", "pre", "pre_interleaved_mqa"}) {
    const RunConfig c = read_replay((root / record).string()).config;
    CHECK(has_llama_attention(c));
    CHECK(c.activation == Activation::swiglu);
    testing::check_replay_parity(root / record);
    ++checked;
  }
  CHECK(checked == 3);
}

// The FFN stack with the default options is the lab as it was before the options existed: the
// committed FFN records (dumped by that code) are reproduced bit for bit, from their own config.json
// (which predates the new fields), data, initial weights and batches to every loss.
TEST_CASE("the default FFN lab is unchanged by the options", "[lab]") {
  const fs::path root = fs::path(TAPEGRAD_FIXTURES_DIR) / "replay";
  for (auto p : nn::all_placements()) {
    const fs::path dir = root / nn::to_string(p);
    INFO("record " << dir.string());
    const RunConfig c = read_replay(dir.string()).config;
    REQUIRE(c.arch == Arch::ffn);
    REQUIRE(c.init == Init::pytorch);
    std::vector<std::pair<std::string, Array>> initial;
    const RunResult r = run_experiment(c, nullptr, [&](const DepthModel& model, const TaskData& task, const Batches&) {
      for (const auto& [name, tensor] : model.named_parameters()) initial.emplace_back(name, tensor.value());
      const bool same_x = task.train.x == read_replay(dir.string()).train.x;
      CHECK(same_x);
    });
    for (const auto& [name, value] : initial) {
      const std::vector<double> recorded = read_npy_vector((dir / (name + ".npy")).string());
      CHECK(std::vector<double>(value.begin(), value.end()) == recorded);
    }
    // The losses to the last few bits only: losses.npy was written before later kernel changes moved
    // them by an ulp or two (the binary before the options gives today's losses bit for bit).
    const std::vector<double> recorded = read_npy_vector((dir / "losses.npy").string()), ours = r.log.losses();
    REQUIRE(ours.size() == recorded.size());
    for (std::size_t i = 0; i < ours.size(); ++i) CHECK(ours[i] == Approx(recorded[i]).epsilon(1e-13));
  }
}

TEST_CASE("the width study's checks: no final norm, unit-norm embeddings", "[lab]") {
  using nn::Placement;
  auto names = [](const RunConfig& c) {
    Generator gen(init_seed(c));
    DepthModel m(c, gen);
    std::vector<std::string> out;
    for (const auto& [name, t] : m.named_parameters()) out.push_back(name);
    return out;
  };
  RunConfig pre = tiny_transformer(Placement::pre), bare = pre;
  bare.final_norm_mode = FinalNormMode::none;
  CHECK(has_name(names(pre), "final_norm.weight"));
  CHECK_FALSE(has_name(names(bare), "final_norm.weight"));
  CHECK(run_id(bare) == run_id(pre) + "_final-none");
  CHECK(init_seed(bare) == init_seed(pre));  // the same draws, one module fewer (a norm draws nothing)
  // The replay record says so (tools/replay_torch.py builds its model from "final_norm"); at the default the
  // field is not written, so older records read back the same.
  CHECK(to_json(bare).find("\"final_norm\": false") != std::string::npos);
  CHECK(to_json(pre).find("final_norm_mode") == std::string::npos);
  CHECK(run_config_from_json(to_json(bare)) == bare);

  RunConfig unit = pre;
  unit.embed_scale = EmbedScale::unit;
  CHECK(run_id(unit) == run_id(pre) + "_embed-unit");
  Generator g1(init_seed(pre)), g2(init_seed(unit));
  DepthModel a(pre, g1), b(unit, g2);
  const double scale = 1.0 / std::sqrt(2.0 * static_cast<double>(pre.d));
  const Array expected = a.token_embedding->weight.value() * scale;
  CHECK(xt::allclose(b.token_embedding->weight.value(), expected, 1e-15, 0.0));
  CHECK(b.fc2_weight(1).value() == a.fc2_weight(1).value());  // the blocks' draws unchanged
  // E||x_0||^2 per token = 1 (each coordinate of token + position N(0, 1/(2d)) + N(0, 1/(2d))): over a large d.
  RunConfig wide = unit;
  wide.d = 512, wide.heads = 2, wide.seq_len = 64, wide.classes = 64;
  Generator g3(init_seed(wide));
  DepthModel w(wide, g3);
  const Array tok = w.token_embedding->weight.value(), pos = w.position_embedding->weight.value();
  double sum = 0;
  for (std::size_t t = 0; t < wide.seq_len; ++t)
    for (std::size_t j = 0; j < wide.d; ++j) {
      const double x = tok(t, j) + pos(t, j);
      sum += x * x;
    }
  CHECK(sum / static_cast<double>(wide.seq_len) == Approx(1.0).epsilon(0.1));
}
