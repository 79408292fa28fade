#pragma once
// Where a sweep's results live, and how the final CSVs are assembled.
//
//   OUT/sweep.json               the grid (see sweep.hpp)
//   OUT/runs/<run_id>/           one folder per FINISHED run, holding its rows
//       run.csv, curves.csv, init_grads.csv, output_change.csv   (no header lines)
//       manifest.txt                             each file's row count and checksum, written last
//   OUT/runs.csv, curves.csv, init_grads.csv, output_change.csv   assembled from runs/ in canonical order
//
// A run's folder is written as runs/.tmp-<run_id>/ (files fsync'ed) and renamed
// into place in one step, so runs/ only ever holds complete runs: a killed sweep
// loses only the runs in flight, and --resume skips every folder present.
// Assembly reads only runs/, so a sharded sweep merged later gives the same
// bytes as an unsharded one. The manifest catches what the rename cannot: a file
// damaged later (truncated, overwritten, edited), which --resume then runs again;
// so is a folder written by an older version with fewer files (its manifest lists
// no output_change.csv).

#include <string>
#include <vector>

#include "tapegrad/lab/depth_run.hpp"

namespace tapegrad::lab {

// The header lines of the four CSVs.
extern const std::string kRunsHeader;
extern const std::string kCurvesHeader;
extern const std::string kInitGradsHeader;     // one row per (run, block, sublayer): diagnostics.hpp
extern const std::string kOutputChangeHeader;  // one row per run: diagnostics.hpp

// The columns every CSV starts with, which run a row is of: "run,placement,depth,d,lr,warmup,seed", then
// every setting (setting_columns(): arch,heads,seq_len,ffn_mult,init,norm,activation,precision).
std::string config_header();
std::string config_columns(const RunConfig& config);

// The rows of one run, as written to its folder.
std::string run_row(const RunResult& result);
std::string curve_rows(const RunResult& result);
std::string init_grad_rows(const RunResult& result);
std::string output_change_row(const RunResult& result);

std::string runs_dir(const std::string& out);
std::string run_dir(const std::string& out, const RunConfig& config);

// What a run's folder holds: nothing, a complete run (its files match its manifest), or damage.
struct RunCheck {
  enum class State { missing, finished, damaged } state = State::missing;
  std::string problem;  // for damaged: which file and what is wrong, e.g. "curves.csv: 5 rows, the manifest says 12"
};
RunCheck check_run(const std::string& out, const RunConfig& config);
bool run_finished(const std::string& out, const RunConfig& config);  // check_run(...).state == finished

// Writes a finished run's folder atomically and durably (replacing an old one).
void save_run(const std::string& out, const RunResult& result);

// Removes leftovers of runs that were in flight when a sweep was killed.
void remove_partial_runs(const std::string& out);
// The finished (or damaged) run folders in out/runs/, not counting leftovers of runs in flight.
std::size_t count_runs(const std::string& out);
// Removes every run folder (a fresh sweep into an old folder); returns how many there were.
std::size_t remove_all_runs(const std::string& out);

// What the summary needs of a finished run, read back from its run.csv.
struct RunOutcome {
  RunConfig config;
  double train_loss, eval_loss;
  bool failed;
  long fail_step;
  std::string fail_reason;
};

struct Assembly {
  std::vector<RunOutcome> outcomes;  // the finished runs, canonical order
  std::size_t missing = 0;           // runs of the grid without a complete folder
};
// Writes OUT/runs.csv, curves.csv, init_grads.csv and output_change.csv (atomically) from the
// folders of the given runs that are finished (damaged ones count as missing),
// in the given order. Throws tapegrad::Error naming the file and line of a run.csv
// it cannot read.
Assembly assemble(const std::string& out, const std::vector<RunConfig>& runs);

}  // namespace tapegrad::lab
