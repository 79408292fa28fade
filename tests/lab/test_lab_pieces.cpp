// The depth-stability lab's library pieces: config ids, seeds, the task, the
// model's names and gradients, the failure criterion, the sweep grid and shards.

#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include <xtensor/xsort.hpp>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/sweep.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

using testing::tiny_run;

TEST_CASE("format_double gives the shortest text that reads back exactly", "[lab]") {
  CHECK(format_double(0.01) == "0.01");
  CHECK(format_double(1e-5) == "1e-05");
  CHECK(format_double(3.0) == "3");
  CHECK(format_double(0.1 + 0.2) == "0.30000000000000004");
  CHECK(format_double(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_double(-std::numeric_limits<double>::infinity()) == "-inf");
  for (double x : {1.0 / 3.0, 2.0 / 7.0, 6.02214076e23, -1.5e-300})
    CHECK(std::strtod(format_double(x).c_str(), nullptr) == x);
}

TEST_CASE("run_id names every swept setting", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::deepnorm, 16);
  c.warmup = 100;
  c.seed = 3;
  CHECK(run_id(c) == "deepnorm_L16_d4_lr0.01_w100_T6_b8_s3");
}

TEST_CASE("seeds: data per seed, init per architecture, batches per batch size", "[lab]") {
  RunConfig a = tiny_run(nn::Placement::post), b = a;
  b.lr = 3e-2;
  b.warmup = 7;
  CHECK(init_seed(a) == init_seed(b));  // an lr sweep starts from the same weights
  CHECK(data_seed(a) == data_seed(b));
  b.placement = nn::Placement::pre;
  CHECK(init_seed(a) != init_seed(b));
  CHECK(data_seed(a) == data_seed(b));  // every placement sees the same data
  CHECK(batch_seed(a) == batch_seed(b));
  b.seed = 1;
  CHECK(data_seed(a) != data_seed(b));
  CHECK(batch_seed(a) != batch_seed(b));
  CHECK(init_seed(a) != data_seed(a));
}

TEST_CASE("validate rejects bad runs with a message naming the field", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::post);
  c.depth = 0;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("depth"));
  c = tiny_run(nn::Placement::post);
  c.lr = 0.0;
  CHECK_THROWS_WITH(validate(c), "RunConfig: lr: a learning rate must be a finite number > 0, got 0");
  c = tiny_run(nn::Placement::post);
  c.batch = 33;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("batch: a batch size must be at most the train set size (32), got 33"));
}

TEST_CASE("validate refuses runs beyond the limits, before any allocation", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::post);
  c.depth = RunLimits::max_depth;
  CHECK_NOTHROW(validate(c));
  c.depth = RunLimits::max_depth + 1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("depth: a depth (number of blocks) must be between 1 and 1024, got 1025"));
  c = tiny_run(nn::Placement::post);
  c.d = RunLimits::max_width + 1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("d: a width must be between 1 and 4096, got 4097"));
  c = tiny_run(nn::Placement::post);
  c.train_size = c.eval_size = RunLimits::max_set_size + 1;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("train_size: the train set size must be between 1 and 1000000"));
  // Each setting within its limit, together too much: the memory estimate refuses it.
  c = tiny_run(nn::Placement::post);
  c.depth = RunLimits::max_depth;
  c.d = RunLimits::max_width;
  CHECK(estimated_bytes(c) > RunLimits::max_bytes);
  CHECK_THROWS_WITH(validate(c), Catch::Contains("MiB per run"));
  // An evaluation holds one chunk's activations (eval_chunks), so a larger eval set costs only its data:
  // 2 numbers (tokens, labels) per position for the Transformer, d_in + 1 per example for the FFN stack.
  for (Arch arch : {Arch::ffn, Arch::transformer}) {
    RunConfig small = tiny_run(nn::Placement::pre);
    small.arch = arch, small.d = 64, small.heads = 4, small.seq_len = 16, small.eval_size = 10000;
    RunConfig large = small;
    large.eval_size = 100000;
    const std::uint64_t per_example = arch == Arch::transformer ? 2 * 16 : small.d_in + 1;
    CHECK(estimated_bytes(large) - estimated_bytes(small) == 8 * 90000 * per_example);
  }
  // The default sweep's deepest run is far below it (a few MiB).
  c = tiny_run(nn::Placement::post);
  c.depth = 32, c.d = 32, c.batch = 64, c.steps = 200, c.train_size = 2048, c.eval_size = 1024;
  CHECK(estimated_bytes(c) < (std::uint64_t{64} << 20));
}

TEST_CASE("config.json round-trips a RunConfig", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::sandwich, 3);
  c.lr = 0.1 + 0.2;  // not a short decimal
  c.warmup = 5;
  c.seed = 12345678901234ULL;
  const std::string json = to_json(c);
  CHECK(run_config_from_json(json) == c);
  CHECK(json.find("\"final_norm\": true") != std::string::npos);
  CHECK_THROWS_WITH(run_config_from_json("{\"placement\": \"post\"}"), Catch::Contains("missing field \"depth\""));
  CHECK_THROWS_WITH(run_config_from_json("not json"), Catch::Contains("not valid JSON"));
}

TEST_CASE("teacher task: reproducible, labels in range and not degenerate", "[lab]") {
  RunConfig c;
  c.train_size = 2048;
  const TeacherTask a = make_teacher_task(c), b = make_teacher_task(c);
  const bool same_x = a.train.x == b.train.x;
  CHECK(same_x);
  CHECK(a.eval.y == b.eval.y);
  REQUIRE(a.train.x.shape() == Shape{2048, 16});
  std::vector<double> count(c.classes, 0.0);
  for (auto y : a.train.y) {
    REQUIRE(y >= 0);
    REQUIRE(y < static_cast<std::int64_t>(c.classes));
    count[static_cast<std::size_t>(y)] += 1.0;
  }
  // The entropy of the labels is the loss of a collapsed model; it must sit
  // above the failure threshold 0.7 ln K, or collapses would go unnoticed.
  double entropy = 0.0;
  for (double n : count)
    if (n > 0) entropy -= n / 2048.0 * std::log(n / 2048.0);
  CHECK(entropy > collapse_threshold(c.classes));
  // The labels are the teacher's argmax: recompute one by hand.
  const std::size_t i = 17;
  Array logits = xt::zeros<double>({c.classes});
  for (std::size_t k = 0; k < c.classes; ++k)
    for (std::size_t j = 0; j < c.teacher_hidden; ++j) {
      double pre = 0.0;
      for (std::size_t m = 0; m < c.d_in; ++m) pre += a.w1(j, m) * a.train.x(i, m);
      logits(k) += a.w2(k, j) * std::tanh(pre);
    }
  const auto argmax = static_cast<std::int64_t>(xt::argmax(logits)());
  CHECK(argmax == a.train.y[i]);
  RunConfig other = c;
  other.seed = 1;
  const bool other_x = make_teacher_task(other).train.x != a.train.x;
  CHECK(other_x);
}

TEST_CASE("sample_batches: distinct in-range indices, reproducible", "[lab]") {
  const RunConfig c = tiny_run(nn::Placement::post);
  const Batches b = sample_batches(c);
  REQUIRE(b.size() == 6);
  for (const auto& batch : b) {
    REQUIRE(batch.size() == 8);
    CHECK(std::set<std::int64_t>(batch.begin(), batch.end()).size() == 8);
    for (auto i : batch) CHECK((i >= 0 && i < 32));
  }
  CHECK(sample_batches(c) == b);
}

TEST_CASE("DepthModel parameters carry PyTorch's state_dict names", "[lab]") {
  auto names = [](nn::Placement p) {
    Generator gen(0);
    DepthModel m(tiny_run(p), gen);
    std::vector<std::string> out;
    for (const auto& [name, t] : m.named_parameters()) out.push_back(name);
    return out;
  };
  const std::vector<std::string> pre = names(nn::Placement::pre);
  const std::vector<std::string> expected{
      "input.weight", "input.bias",
      "blocks.0.ffn.fc1.weight", "blocks.0.ffn.fc1.bias", "blocks.0.ffn.fc2.weight", "blocks.0.ffn.fc2.bias",
      "blocks.0.norm.weight", "blocks.0.norm.bias",
      "blocks.1.ffn.fc1.weight", "blocks.1.ffn.fc1.bias", "blocks.1.ffn.fc2.weight", "blocks.1.ffn.fc2.bias",
      "blocks.1.norm.weight", "blocks.1.norm.bias",
      "final_norm.weight", "final_norm.bias", "head.weight", "head.bias"};
  CHECK(pre == expected);
  const auto post = names(nn::Placement::post);
  CHECK(std::find(post.begin(), post.end(), "final_norm.weight") == post.end());
  const auto rezero = names(nn::Placement::rezero);
  CHECK(std::find(rezero.begin(), rezero.end(), "blocks.1.alpha") != rezero.end());
  const auto sandwich = names(nn::Placement::sandwich);
  CHECK(std::find(sandwich.begin(), sandwich.end(), "blocks.0.norm_out.weight") != sandwich.end());
  CHECK(std::find(sandwich.begin(), sandwich.end(), "final_norm.bias") != sandwich.end());
}

TEST_CASE("DepthModel: DeepNorm scales the sublayer weights by beta(L)", "[lab]") {
  Generator g1(5), g2(5);
  DepthModel post(tiny_run(nn::Placement::post, 3), g1), deep(tiny_run(nn::Placement::deepnorm, 3), g2);
  const double beta = nn::deepnorm_constants(3).beta;
  CHECK(testing::allclose(deep.fc2_weight(2).value(), beta * post.fc2_weight(2).value(), 1e-15, 0.0));
  const bool same_input = deep.input->weight.value() == post.input->weight.value();
  CHECK(same_input);  // only the blocks' weights are scaled
}

TEST_CASE("DepthModel gradients pass gradcheck for every placement", "[lab]") {
  for (auto p : nn::all_placements()) {
    INFO("placement " << nn::to_string(p));
    RunConfig c = tiny_run(p);
    c.d_in = 3;
    c.classes = 3;
    Generator gen(11);
    DepthModel model(c, gen);
    if (p == nn::Placement::rezero)  // alpha = 0 at init hides the blocks; open them up
      for (auto& [name, t] : model.named_parameters())
        if (name.find("alpha") != std::string::npos) t.mutable_value().fill(0.7);
    const Tensor x(gen.randn({5, 3}));
    const std::vector<std::int64_t> y{0, 2, 1, 1, 0};
    REQUIRE_GRADCHECK([&](const std::vector<Tensor>&) { return cross_entropy(model(x), y); }, model.parameters());
  }
}

TEST_CASE("classify: NaN, collapse and success", "[lab]") {
  const double threshold = collapse_threshold(8);
  CHECK(threshold == Approx(0.7 * std::log(8.0)));
  TrainLog log;
  log.evals = {{0, 2.1}, {10, 1.2}, {20, 1.95}, {30, 2.0}};
  Failure f = classify(log, 2.0, 8);
  CHECK(f.failed);
  CHECK(f.reason == "collapse");
  CHECK(f.step == 20);  // stuck from step 20 on
  log.evals = {{0, 2.1}, {10, 2.0}, {20, 1.95}};
  CHECK(classify(log, 1.95, 8).step == 0);  // never learned
  log.evals = {{0, 2.1}, {10, 1.0}, {20, 0.9}};
  f = classify(log, 0.9, 8);
  CHECK_FALSE(f.failed);
  CHECK(f.step == -1);
  log.nonfinite_step = 7;
  f = classify(log, std::numeric_limits<double>::quiet_NaN(), 8);
  CHECK(f.failed);
  CHECK(f.reason == "nonfinite");
  CHECK(f.step == 7);
}

TEST_CASE("train stops at the first NaN loss and flags it", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::none);
  const TeacherTask task = make_teacher_task(c);
  Generator gen(init_seed(c));
  DepthModel model(c, gen);
  model.head->bias.mutable_value()(0) = std::numeric_limits<double>::quiet_NaN();
  RunResult r;
  r.config = c;
  r.log = train(model, task.train, &task.eval, sample_batches(c), c);
  CHECK(r.log.nonfinite_step == 0);
  CHECK(r.log.curve.size() == 1);
  // No update was taken: no output change (nan in output_change.csv).
  CHECK(std::isnan(r.log.first_step.output_change));
  CHECK_THAT(output_change_row(r), Catch::EndsWith(",0,nan,nan,nan\n"));
}

TEST_CASE("run_experiment is bitwise reproducible, also on another thread", "[lab]") {
  const RunConfig c = tiny_run(nn::Placement::post, 3);
  const RunResult a = run_experiment(c);
  RunResult b;
  std::thread([&] { b = run_experiment(c); }).join();
  REQUIRE(a.log.curve.size() == 6);
  for (std::size_t i = 0; i < a.log.curve.size(); ++i) {
    CHECK(a.log.curve[i].loss == b.log.curve[i].loss);
    CHECK(a.log.curve[i].grad_norm == b.log.curve[i].grad_norm);
  }
  CHECK(a.eval_loss == b.eval_loss);
  REQUIRE(a.log.init.size() == 3);
  CHECK(a.log.init[2].weight_grad_norm > 0.0);
  // evals at 0, 2, 4 and the final 6
  REQUIRE(a.log.evals.size() == 4);
  CHECK(a.log.evals.back().step == 6);
  CHECK(a.eval_loss == a.log.evals.back().loss);
}

TEST_CASE("the learning rate follows the linear warmup", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::pre);
  c.warmup = 4;
  const RunResult r = run_experiment(c);
  CHECK(r.log.curve[0].lr == Approx(0.25 * c.lr));
  CHECK(r.log.curve[2].lr == Approx(0.75 * c.lr));
  CHECK(r.log.curve[5].lr == c.lr);
}

TEST_CASE("expand: canonical order, and shards that partition it", "[lab]") {
  SweepGrid g;
  g.placements = {nn::Placement::post, nn::Placement::pre};
  g.lrs = {1e-3, 1e-2};
  g.warmups = {0};
  g.depths = {2, 4, 8};
  g.widths = {8};
  g.steps = {10};
  g.batches = {4};
  g.seeds = {0, 1};
  const auto runs = expand(g);
  REQUIRE(runs.size() == 24);
  CHECK(runs[0].placement == nn::Placement::post);
  CHECK(runs[1].seed == 1);          // seed innermost
  CHECK(runs[2].depth == 4);         // then depth
  CHECK(runs[6].lr == 1e-2);         // lr outside depth
  CHECK(runs[12].placement == nn::Placement::pre);
  std::set<std::string> ids;
  for (const auto& r : runs) ids.insert(run_id(r));
  CHECK(ids.size() == runs.size());

  const Shard s = parse_shard("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  std::size_t covered = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    int owners = 0;
    for (std::size_t k = 0; k < 5; ++k) owners += Shard{k, 5}.contains(i);
    covered += owners == 1;
  }
  CHECK(covered == runs.size());
  for (const char* bad : {"3", "3/3", "1/0", "-1/2", "a/b", "1/2/3", ""})
    CHECK_THROWS_WITH(parse_shard(bad), Catch::Contains("expected i/n"));

  CHECK(sweep_grid_from_json(to_json(g)) == g);
  g.depths = {2, 2};
  CHECK_THROWS_WITH(expand(g), Catch::Contains("repeats"));
  g.depths = {};
  CHECK_THROWS_WITH(expand(g), Catch::Contains("empty"));
}
