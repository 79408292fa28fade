// The lab's results folder (per-run folders, assembled CSVs, summary) and the
// replay records checked against PyTorch (tests/fixtures/replay/<placement>/).

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/replay.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/summary.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;
namespace fs = std::filesystem;

namespace {

// The last word of the table row that starts with `placement`.
std::string cell(const std::string& table, const std::string& placement) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(placement + " ", 0) == 0) return line.substr(line.find_first_not_of(' ', placement.size()));
  return "(no row)";
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("results store: runs saved in any order assemble in canonical order", "[lab]") {
  const std::string out = testing::scratch_dir("store");
  const auto runs = expand(testing::tiny_grid());
  REQUIRE(runs.size() == 4);
  for (std::size_t i : {3, 0, 2}) save_run(out, run_experiment(runs[i]));
  CHECK(run_finished(out, runs[0]));
  CHECK_FALSE(run_finished(out, runs[1]));

  const Assembly a = assemble(out, runs);
  CHECK(a.missing == 1);
  REQUIRE(a.outcomes.size() == 3);
  CHECK(a.outcomes[0].config == runs[0]);
  CHECK(a.outcomes[1].config == runs[2]);
  const std::string csv = read_file(out + "/runs.csv");
  CHECK(csv.rfind(kRunsHeader, 0) == 0);
  CHECK(lines(csv) == 4);
  CHECK(csv.find(run_id(runs[0])) < csv.find(run_id(runs[3])));
  // 4 steps per run; depth 1 and 2 blocks of init stats
  CHECK(lines(read_file(out + "/curves.csv")) == 1 + 3 * 4);
  CHECK(lines(read_file(out + "/init_grads.csv")) == 1 + 2 + 1 + 1);  // blocks of runs 3 (L=2), 0 and 2 (L=1)
  const std::string change = read_file(out + "/output_change.csv");
  CHECK(lines(change) == 1 + 3);  // one row per run
  CHECK(change.rfind(kOutputChangeHeader, 0) == 0);
  CHECK(change.find(run_id(runs[0])) < change.find(run_id(runs[3])));

  // A run in flight when the sweep was killed leaves only a .tmp- folder, which is not a result.
  fs::create_directories(runs_dir(out) + "/.tmp-" + run_id(runs[1]));
  CHECK_FALSE(run_finished(out, runs[1]));
  remove_partial_runs(out);
  CHECK_FALSE(fs::exists(runs_dir(out) + "/.tmp-" + run_id(runs[1])));

  save_run(out, run_experiment(runs[1]));
  const std::string before = read_file(out + "/runs.csv");
  CHECK(assemble(out, runs).missing == 0);
  CHECK(read_file(out + "/runs.csv") != before);
  fs::remove_all(out);
}

TEST_CASE("check_run: a finished run's files must match its manifest", "[lab]") {
  const std::string out = testing::scratch_dir("manifest");
  const RunConfig c = expand(testing::tiny_grid())[0];
  CHECK(check_run(out, c).state == RunCheck::State::missing);
  save_run(out, run_experiment(c));
  REQUIRE(check_run(out, c).state == RunCheck::State::finished);
  const std::string dir = run_dir(out, c);
  const std::string curves = read_file(dir + "/curves.csv"), init = read_file(dir + "/init_grads.csv");

  write_file_atomically(dir + "/curves.csv", curves.substr(0, curves.find('\n') + 1));  // truncated to one row
  RunCheck check = check_run(out, c);
  CHECK(check.state == RunCheck::State::damaged);
  CHECK(check.problem == "curves.csv: 1 rows, the manifest says 4");
  CHECK_FALSE(run_finished(out, c));
  CHECK(assemble(out, {c}).missing == 1);  // a damaged run is never assembled

  write_file_atomically(dir + "/curves.csv", curves);
  std::string flipped = init;
  flipped[3] ^= 0x20;  // one changed byte, the same number of rows
  write_file_atomically(dir + "/init_grads.csv", flipped);
  CHECK_THAT(check_run(out, c).problem, Catch::Contains("init_grads.csv: its checksum does not match"));

  write_file_atomically(dir + "/init_grads.csv", init);
  CHECK(check_run(out, c).state == RunCheck::State::finished);
  const std::string change = read_file(dir + "/output_change.csv");
  write_file_atomically(dir + "/output_change.csv", "");
  CHECK(check_run(out, c).problem == "output_change.csv: 0 rows, the manifest says 1");
  write_file_atomically(dir + "/output_change.csv", change);
  // A folder of an older tapegrad-depth (no output_change.csv, three manifest lines) is run again.
  const std::string manifest = read_file(dir + "/manifest.txt");
  write_file_atomically(dir + "/manifest.txt", manifest.substr(0, manifest.rfind("output_change.csv")));
  CHECK(check_run(out, c).problem == "manifest.txt lists no output_change.csv (written by an older tapegrad-depth?)");
  write_file_atomically(dir + "/manifest.txt", manifest);
  CHECK(check_run(out, c).state == RunCheck::State::finished);
  // A folder of a version before the setting columns: whole (its manifest matches), but run again rather than
  // assembled beside rows with more columns.
  const std::string row = read_file(dir + "/run.csv");
  const std::string settings = row.substr(0, row.find(",ffn,,,")) + row.substr(row.find(",fp64,auto,,,,synthetic,0,") + 25);  // up to the task and dropout
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(stable_hash(settings)));
  write_file_atomically(dir + "/run.csv", settings);
  write_file_atomically(dir + "/manifest.txt", "run.csv 1 " + std::string(hash) + "\n" +
                                                   manifest.substr(manifest.find('\n') + 1));
  CHECK(check_run(out, c).problem == "run.csv: 14 columns, this version writes 28 (written by an older tapegrad-depth?)");
  write_file_atomically(dir + "/run.csv", row);
  write_file_atomically(dir + "/manifest.txt", manifest);
  fs::remove(dir + "/manifest.txt");
  CHECK_THAT(check_run(out, c).problem, Catch::Contains("manifest.txt is missing"));
  fs::remove_all(out);
}

TEST_CASE("assemble names the file, line and column of a value it cannot read", "[lab]") {
  const std::string out = testing::scratch_dir("parse");
  const RunConfig c = expand(testing::tiny_grid())[0];
  save_run(out, run_experiment(c));
  const std::string dir = run_dir(out, c);
  // A run.csv with a non-number where train_loss goes, and a manifest that vouches for it
  // (as if written so): the parse must still refuse it, naming where.
  std::string row = read_file(dir + "/run.csv");
  std::vector<std::size_t> commas;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == ',') commas.push_back(i);
  const std::string header = kRunsHeader.substr(0, kRunsHeader.find(",train_loss,"));
  const auto k = static_cast<std::size_t>(std::count(header.begin(), header.end(), ','));  // train_loss's comma
  row.replace(commas[k] + 1, commas[k + 1] - commas[k] - 1, "1.5x");
  write_file_atomically(dir + "/run.csv", row);
  std::string manifest = read_file(dir + "/manifest.txt");
  char sum[17];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(stable_hash(row)));
  manifest.replace(0, manifest.find('\n'), "run.csv 1 " + std::string(sum));
  write_file_atomically(dir + "/manifest.txt", manifest);
  REQUIRE(run_finished(out, c));
  CHECK_THROWS_WITH(assemble(out, {c}),
                    Catch::Contains(dir + "/run.csv:1: column train_loss: '1.5x' is not a number"));
  fs::remove_all(out);
}

TEST_CASE("summary table: the deepest depth that trained", "[lab]") {
  const SweepGrid g = testing::tiny_grid();
  const auto runs = expand(g);
  std::vector<RunOutcome> outcomes;
  for (const auto& c : runs) outcomes.push_back({c, 0.5, 0.6, false, -1, ""});
  outcomes[1].eval_loss = 1.9;  // post, depth 2: collapsed (K = 8: above 0.7 ln 8 = 1.456)
  outcomes[1].failed = true;
  outcomes[1].fail_reason = "collapse";
  const std::string t = summary_table(g, outcomes);
  INFO(t);
  CHECK(cell(t, "post") == "1");
  CHECK(cell(t, "rezero") == "2");
  CHECK(t.find("1 seed") != std::string::npos);
  CHECK(t.find("With fewer than 3 seeds") != std::string::npos);  // a one-seed table says what it is
  CHECK(t.find("runs failed") == std::string::npos);             // per-run counts are not the summary's
  CHECK(run_counts(outcomes) == "1 of 4 runs failed (0 with NaN/Inf, 1 collapsed: final eval loss above the threshold).\n");
  outcomes[0].eval_loss = 2.0;  // post depth 1 fails too, depth 2 trains: non-monotone
  outcomes[1].eval_loss = 0.6;
  CHECK(cell(summary_table(g, outcomes), "post") == "2*");
  outcomes[1].eval_loss = 1.2;  // depth 2 between 0.5 ln 8 = 1.040 and 1.456: shown as such, not rounded
  CHECK(cell(summary_table(g, outcomes), "post") == "- ~2");
  outcomes.pop_back();  // a rezero run missing
  CHECK(cell(summary_table(g, outcomes), "rezero") == "1?");
}

// Issue 41: one seed's final loss moved by 0.5 between two OpenBLAS kernels at post, L = 32 (1.086 under
// Haswell, 1.519 under SkylakeX), turning the README's 32 into 16. The verdict is the median run's.
TEST_CASE("summary verdict: the median of the seeds, with the gap shown", "[lab]") {
  SweepGrid g = testing::tiny_grid();
  g.placements = {nn::Placement::post};
  g.depths = {1};
  g.seeds = {0, 1, 2};
  const auto runs = expand(g);
  REQUIRE(runs.size() == 3);
  auto table_for = [&](std::vector<double> losses) {
    std::vector<RunOutcome> outcomes;
    for (std::size_t i = 0; i < runs.size(); ++i)
      outcomes.push_back({runs[i], 0.5, losses[i], losses[i] > collapse_threshold(8), -1, ""});
    return cell(summary_table(g, outcomes), "post");
  };
  CHECK(table_for({0.8, 0.9, 1.9}) == "1");    // one seed collapsed: the median trained
  CHECK(table_for({1.9, 0.9, 2.0}) == "-");    // two collapsed
  CHECK(table_for({1.086, 1.29, 1.25}) == "- ~1");  // issue 41's seeds: in the gap, whichever kernel
  CHECK(table_for({1.519, 1.29, 1.25}) == "- ~1");
  // NaN runs are the worst runs: two of three NaN fail the depth, one does not.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(table_for({nan, 0.7, nan}) == "-");
  CHECK(table_for({nan, 0.7, 0.8}) == "1");
  CHECK(median_eval_loss({3.0, 1.0}) == 2.0);
  CHECK(std::isnan(median_eval_loss({})));
  CHECK(verdict_of(1.040, 8) == Verdict::between);  // 0.5 ln 8 = 1.0397: the bands' edges
  CHECK(verdict_of(1.039, 8) == Verdict::trained);
  CHECK(verdict_of(1.457, 8) == Verdict::failed);
}

TEST_CASE("write_replay writes a record that replays bitwise in tapegrad", "[lab]") {
  const std::string dir = testing::scratch_dir("replay");
  RunConfig c = testing::tiny_run(nn::Placement::sandwich);
  c.warmup = 3;
  const RunResult r = write_replay(dir, c);
  for (const char* f : {"config.json", "x.npy", "y.npy", "batches.npy", "losses.npy", "input.weight.npy",
                        "blocks.1.ffn.fc2.weight.npy", "blocks.0.norm_out.bias.npy", "final_norm.weight.npy",
                        "head.bias.npy"})
    CHECK(fs::exists(fs::path(dir) / f));
  const Replay rp = read_replay(dir);
  CHECK(rp.config == c);
  CHECK(rp.batches == sample_batches(c));
  CHECK(rp.train.y == make_teacher_task(c).train.y);
  CHECK(read_npy_vector(dir + "/losses.npy") == r.log.losses());
  CHECK(replay_losses(dir) == r.log.losses());

  // A damaged record is refused with the file and shapes named.
  fs::copy_file(dir + "/y.npy", dir + "/batches.npy", fs::copy_options::overwrite_existing);
  CHECK_THROWS_WITH(read_replay(dir), Catch::Contains("batches.npy' holds shape (32)"));
  fs::remove(dir + "/x.npy");
  CHECK_THROWS_WITH(read_replay(dir), Catch::Contains("x.npy"));
  fs::remove_all(dir);
}

// The committed records (made by tools/make_replay_fixtures.sh: `tapegrad-depth --dump`, losses from
// `tools/replay_torch.py --write` with torch 1.13 in float64): our training of
// the same model from the same initial parameters on the same batches must
// give PyTorch's per-step losses to 1e-9 relative, for every placement.
TEST_CASE("replay parity with PyTorch for every placement", "[lab]") {
  const fs::path root = fs::path(TAPEGRAD_FIXTURES_DIR) / "replay";
  std::size_t checked = 0;
  for (auto p : nn::all_placements()) {
    testing::check_replay_parity(root / nn::to_string(p));
    ++checked;
  }
  CHECK(checked == 6);
}
