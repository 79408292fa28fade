// The papers' diagnostics (lab/src/diagnostics.cpp): the per-sublayer gradients at init and the
// output change of the first step; and the figures (lab/src/plot_figure.cpp, plots.cpp) a learner
// reads without help: chance line, which runs a curve shows, clipped values marked, coincident
// lines named, no point on the frame.

#include <cmath>
#include <cstring>
#include <map>
#include <filesystem>
#include <regex>
#include <sstream>

#include <xtensor/xmath.hpp>

#include "helpers.hpp"
#include "lab/lab_helpers.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/plot_figure.hpp"
#include "tapegrad/lab/plots.hpp"
#include "tapegrad/lab/results_store.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;
namespace fs = std::filesystem;

using testing::tiny_run;

namespace {

double frobenius(const Array& a) { return std::sqrt(xt::sum(a * a)()); }

}  // namespace

TEST_CASE("init gradient rows: ||dL/dW|| of each output projection, computed directly on the first batch", "[lab]") {
  for (auto p : {nn::Placement::post, nn::Placement::pre, nn::Placement::deepnorm}) {
    INFO("placement " << nn::to_string(p));
    const RunConfig c = tiny_run(p, 3);
    const RunResult r = run_experiment(c);

    // The same model, data and first minibatch, by hand.
    const TeacherTask task = make_teacher_task(c);
    Generator gen(init_seed(c));
    DepthModel model(c, gen);
    const Dataset batch = gather(task.train, sample_batches(c)[0]);
    std::vector<Tensor> hidden;
    cross_entropy(model.forward(Tensor(batch.x), &hidden), batch.y).backward();
    std::map<std::string, Tensor> params;
    for (const auto& [name, t] : model.named_parameters()) params.emplace(name, t);

    REQUIRE(r.log.init.size() == 3);  // one output projection per FFN block
    for (const SublayerInitGrad& row : r.log.init) {
      CHECK(row.sublayer == "ffn.fc2.weight");
      const std::string key = "blocks." + std::to_string(row.block) + "." + row.sublayer;
      REQUIRE(params.count(key) == 1);  // the row names a real state_dict entry
      const double direct = frobenius(params.at(key).grad());
      CHECK(direct > 0);
      CHECK(row.weight_grad_norm == Approx(direct).epsilon(1e-12));
      const Array& h = hidden[row.block].value();
      CHECK(row.hidden_norm == Approx(std::sqrt(xt::sum(h * h)() / 8.0)).epsilon(1e-12));
    }
  }
}

TEST_CASE("output change of the first step: 0 as lr goes to 0, proportional to a small lr", "[lab]") {
  auto change = [](double lr, long warmup) {
    RunConfig c = tiny_run(nn::Placement::post, 2);
    c.lr = lr;
    c.warmup = warmup;
    return run_experiment(c).log.first_step;
  };
  const OutputChange tiny = change(1e-9, 0), small = change(1e-8, 0), big = change(1e-2, 0);
  CHECK(tiny.probe_rows == 8);  // the first `batch` rows of the eval set
  CHECK(tiny.step_lr == 1e-9);
  CHECK(tiny.output_rms > 0.1);
  CHECK(tiny.output_change < 1e-6 * tiny.output_rms);
  // Adam's first step is lr·sign(g) per weight: the change is linear in a small lr.
  CHECK(small.output_change / tiny.output_change == Approx(10.0).epsilon(1e-3));
  CHECK(big.output_change > 1e5 * tiny.output_change);
  CHECK(tiny.output_rms == big.output_rms);  // the same initial model
  // With warmup the first update uses lr/W.
  const OutputChange warm = change(1e-8, 10);
  CHECK(warm.step_lr == Approx(1e-9));
  CHECK(warm.output_change == Approx(tiny.output_change).epsilon(1e-3));
}

TEST_CASE("output_change and rms_row_norm measure rows", "[lab]") {
  const Array before = {{1.0, 2.0}, {3.0, 4.0}};
  const Array after = {{1.0, 2.0}, {6.0, 8.0}};  // row 1 moves by (3, 4): norm 5
  const OutputChange c = output_change(before, after, 0.5);
  CHECK(c.probe_rows == 2);
  CHECK(c.step_lr == 0.5);
  CHECK(c.output_change == Approx(std::sqrt(25.0 / 2)));
  CHECK(c.output_rms == Approx(std::sqrt(30.0 / 2)));
}

TEST_CASE("diagnostic CSVs: one row per (run, block, sublayer) and per run, byte-equal for the same seed", "[lab]") {
  const RunConfig c = tiny_run(nn::Placement::pre, 3);
  const RunResult a = run_experiment(c), b = run_experiment(c);
  CHECK(init_grad_rows(a) == init_grad_rows(b));
  CHECK(output_change_row(a) == output_change_row(b));
  std::istringstream rows(init_grad_rows(a));
  std::string line;
  std::size_t n = 0;
  while (std::getline(rows, line)) {
    // The axes, then every setting (heads, seq_len, embed_scale, positions and kv_heads empty for the FFN stack; task;
    // dropout 0), then the block's.
    CHECK(line.rfind(run_id(c) + ",pre,3,4,0.01,0,0,ffn,,,4,pytorch,layer,relu,fp64,auto,,,,synthetic,0," + std::to_string(n) +
                         ",ffn.fc2.weight,",
                     0) == 0);
    ++n;
  }
  CHECK(n == 3);
  // The columns the headers promise.
  CHECK(kInitGradsHeader ==
        "run,placement,depth,d,lr,warmup,seed,arch,heads,seq_len,ffn_mult,init,norm,activation,precision,"
        "final_norm_mode,embed_scale,positions,kv_heads,task,dropout,block,sublayer,weight_grad_norm,hidden_norm\n");
  const std::string row = output_change_row(a), header = kOutputChangeHeader;
  CHECK(std::count(row.begin(), row.end(), ',') == std::count(header.begin(), header.end(), ','));
}

// ---- figures ----

namespace {

Series series(const std::string& name, std::vector<std::pair<double, double>> points, double offset = 0) {
  Series s;
  s.name = s.title = name;
  s.style = "with linespoints";
  s.colour = "black";
  s.x_offset = offset;
  for (const auto& [x, y] : points) s.add(x, y, 3.0);
  return s;
}

// The numbers of "set <axis>range [lo:hi]" lines, in order.
std::vector<std::pair<double, double>> ranges(const std::string& script, const std::string& axis) {
  std::vector<std::pair<double, double>> out;
  const std::regex re("set " + axis + "range \\[([^:]+):([^\\]]+)\\]");
  for (auto it = std::sregex_iterator(script.begin(), script.end(), re); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  return out;
}

}  // namespace

TEST_CASE("Figure: margins around every point, clipped values marked, coincident series named", "[lab]") {
  Figure f;
  f.png = "x.png";
  f.title = "t";
  Panel loss;
  loss.title = "loss";
  loss.clip_top = 3.0;
  loss.series.push_back(series("a", {{0, 0.0}, {10, 1.0}, {20, 5.0}}));  // 5.0 > 3: clipped
  loss.series.back().add(30, std::numeric_limits<double>::quiet_NaN(), 3.0);
  loss.series.push_back(series("b", {{0, 2.0}, {10, 2.0}}));
  loss.series.push_back(series("c", {{0, 2.0}, {10, 2.0 + 1e-6}}));  // under b
  Panel logs;
  logs.title = "log";
  logs.log_x = logs.log_y = true;
  logs.series.push_back(series("p", {{2, 0.01}, {32, 1.0}}, 0.04));
  logs.series.push_back(series("z", {{2, 0.0}, {32, 0.0}}));  // nothing to draw on a log axis
  f.panels = {loss, logs};
  const std::string s = f.script();
  INFO(s);

  const auto x = ranges(s, "x"), y = ranges(s, "y");
  REQUIRE(x.size() == 2);
  REQUIRE(y.size() == 2);
  CHECK(x[0].first < 0);
  CHECK(x[0].second > 30);  // the NaN marker at step 30 is inside too
  CHECK(y[0].first < 0);    // the loss 0.0 is not on the frame
  CHECK(y[0].second > 3.0);  // nor the clipped markers at 3
  CHECK(x[1].first < 2.0);
  CHECK(x[1].second > 32.0 * std::pow(2.0, 0.04));  // the shifted marker
  CHECK(y[1].first < 0.01);
  CHECK(y[1].second > 1.0);

  CHECK(s.find("keyentry with points pt 9 ps 1.4 lc rgb 'black' title 'clipped / NaN") != std::string::npos);
  CHECK(s.find("20 3\n30 3\nEOD") != std::string::npos);  // the two markers, at the clip level
  CHECK(s.find("(b and c coincide)") != std::string::npos);
  CHECK(s.find("(a and b coincide)") == std::string::npos);
  CHECK(s.find("keyentry with linespoints title 'z (0: not on the log axis)'") != std::string::npos);
  CHECK(s.find("2.0562") != std::string::npos);  // 2 shifted by 0.04 octaves: 2·2^0.04 = 2.0562...
}

namespace {

// post and pre at depths 1, 2, 4, two seeds: the aggregated plots average them.
SweepGrid two_seed_grid() {
  SweepGrid g = testing::tiny_grid();
  g.placements = {nn::Placement::post, nn::Placement::pre};
  g.depths = {1, 2, 4};
  g.steps = {6};
  g.seeds = {0, 1};
  return g;
}

}  // namespace

TEST_CASE("the sweep's figures say what they show", "[lab]") {
  const std::string out = testing::scratch_dir("plots");
  const SweepGrid g = two_seed_grid();
  const auto runs = expand(g);
  for (const auto& c : runs) save_run(out, run_experiment(c));
  assemble(out, runs);
  // One run NaN at the end, another spiking above the loss plot's range.
  std::string curves = read_file(out + "/curves.csv");
  const std::string spike_run = run_id(runs[0]) + ",post,1,4,0.01,0,0" + config_columns(runs[0]).substr(
                                    config_columns(runs[0]).find(",ffn,")) + ",3,";
  const auto at = curves.find(spike_run);
  REQUIRE(at != std::string::npos);
  curves.replace(at + spike_run.size(), curves.find(',', at + spike_run.size()) - at - spike_run.size(), "7.5");
  write_file_atomically(out + "/curves.csv", curves);

  const auto scripts = write_plot_scripts(out, g);
  CHECK(scripts == std::vector<std::string>{"curves_lr0.01_w0.gp", "eval_vs_depth.gp", "init_grads.gp",
                                            "last_block_grad.gp", "output_change.gp"});
  const std::string curve = read_file(out + "/curves_lr0.01_w0.gp");
  const std::string eval = read_file(out + "/eval_vs_depth.gp");
  const std::string init = read_file(out + "/init_grads.gp");
  const std::string last = read_file(out + "/last_block_grad.gp");
  const std::string change = read_file(out + "/output_change.gp");

  // Chance level, labelled, wherever losses are plotted.
  const std::string chance = "title 'chance: ln K = ln 8 = 2.079'";
  CHECK(curve.find(chance) != std::string::npos);
  CHECK(eval.find(chance) != std::string::npos);
  CHECK(eval.find("title 'failed above 0.7 ln K = 1.456'") != std::string::npos);
  CHECK(eval.find("title 'trained below 0.5 ln K = 1.04'") != std::string::npos);  // the verdict's other line
  // Per-run plots name their run; aggregated ones say they average.
  CHECK(curve.find("one run per line: seed 0, d = 4, batch 8, 6 steps (the first of the sweep's settings)") !=
        std::string::npos);
  CHECK(init.find("L = 4, seed 0, d = 4") != std::string::npos);
  CHECK(eval.find("each point the median over seeds 0,1") != std::string::npos);
  CHECK(last.find("each point the mean over seeds 0,1") != std::string::npos);
  CHECK(change.find("each point the mean over seeds 0,1") != std::string::npos);
  // The spike is clipped and marked.
  CHECK(curve.find("clipped / NaN") != std::string::npos);
  CHECK(eval.find("clipped / NaN") == std::string::npos);  // nothing clipped there
  // Thm. 1's reference slope on a log-log plot; the output change on log-log.
  CHECK(last.find("*sqrt(1/x) with lines") != std::string::npos);
  CHECK(last.find("set logscale x 2\nset logscale y") != std::string::npos);
  CHECK(change.find("set logscale x 2\nset logscale y") != std::string::npos);
  CHECK(init.find("W = ffn.fc2.weight") != std::string::npos);
  // Every panel has explicit ranges (autoscale would put points on the frame).
  for (const std::string* s : {&curve, &eval, &init, &last, &change}) {
    std::size_t plots = 0;
    for (std::size_t pos = s->find("\nplot "); pos != std::string::npos; pos = s->find("\nplot ", pos + 1)) ++plots;
    CHECK(ranges(*s, "x").size() == plots);
    CHECK(ranges(*s, "y").size() == plots);
  }

  // A NaN final loss becomes a clipped marker in eval_vs_depth.
  std::string runs_csv = read_file(out + "/runs.csv");
  const auto row = runs_csv.find(run_id(runs[2]));
  std::vector<std::size_t> commas;
  for (std::size_t i = row; runs_csv[i] != '\n'; ++i)
    if (runs_csv[i] == ',') commas.push_back(i);
  const std::size_t k = commas.size() - 4;  // eval_loss's comma: eval_loss,failed,fail_step,fail_reason end the row
  runs_csv.replace(commas[k] + 1, commas[k + 1] - commas[k] - 1, "nan");
  write_file_atomically(out + "/runs.csv", runs_csv);
  write_plot_scripts(out, g);
  CHECK(read_file(out + "/eval_vs_depth.gp").find("clipped / NaN") != std::string::npos);
  fs::remove_all(out);
}

TEST_CASE("the probe forwards leave training bitwise unchanged", "[lab]") {
  RunConfig c = tiny_run(nn::Placement::post, 2);
  c.warmup = 2;
  const RunResult r = run_experiment(c);
  // The same training by hand, without evals or probes.
  const TeacherTask task = make_teacher_task(c);
  Generator gen(init_seed(c));
  DepthModel model(c, gen);
  const std::vector<Tensor> params = model.parameters();
  optim::AdamOptions options;
  options.lr = c.lr;
  optim::Adam adam(params, options);
  const optim::LinearWarmup schedule(c.lr, c.warmup);
  const Batches batches = sample_batches(c);
  std::vector<double> losses;
  for (long step = 0; step < c.steps; ++step) {
    schedule.apply(adam, step);
    adam.zero_grad();
    const Dataset batch = gather(task.train, batches[static_cast<std::size_t>(step)]);
    Tensor loss = cross_entropy(model(Tensor(batch.x)), batch.y);
    loss.backward();
    losses.push_back(loss.item());
    adam.step();
  }
  CHECK(losses == r.log.losses());
}
