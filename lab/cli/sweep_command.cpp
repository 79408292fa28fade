// tapegrad-depth [options]: train the sweep's runs (or one shard of them) into --out.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "exit_status.hpp"
#include "progress_bar.hpp"
#include "report.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/sweep_runner.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

namespace {

// The runs of this shard still to train. --resume keeps finished runs and redoes damaged
// ones (saying so); a fresh sweep starts from an empty runs/, and says so when it replaces an
// earlier sweep's runs (running scripts/lab.sh twice trains the sweep again, never half of it).
std::vector<RunConfig> runs_to_do(const Command& c, const std::vector<RunConfig>& mine) {
  if (!c.resume) {
    const std::size_t earlier = remove_all_runs(c.out);
    if (earlier > 0)
      std::cout << "tapegrad-depth: " << c.out << " held " << earlier
                << " runs of an earlier sweep: they are replaced by this one (--resume keeps finished runs)\n";
    return mine;
  }
  remove_partial_runs(c.out);
  std::vector<RunConfig> pending;
  for (const auto& run : mine) {
    const RunCheck check = check_run(c.out, run);
    if (check.state == RunCheck::State::finished) continue;
    if (check.state == RunCheck::State::damaged)
      std::cerr << "tapegrad-depth: " << run_dir(c.out, run) << " is damaged (" << check.problem
                << "); running it again\n";
    pending.push_back(run);
  }
  return pending;
}

}  // namespace

int run_sweep(const Command& c, const std::atomic<bool>& stop) {
  std::vector<RunConfig> mine;
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    if (c.shard.contains(i)) mine.push_back(c.runs[i]);
  const std::vector<RunConfig> pending = runs_to_do(c, mine);
  write_file_atomically((fs::path(c.out) / "sweep.json").string(), to_json(c.grid));

  const std::size_t threads = std::min(c.jobs, std::max<std::size_t>(1, pending.size()));
  const std::size_t skipped = mine.size() - pending.size();
  std::cout << "tapegrad-depth: " << mine.size() << " runs"
            << (c.shard.count > 1 ? " (shard " + c.shard_text + " of " + std::to_string(c.runs.size()) + ")" : "")
            << ", " << pending.size() << " to do"
            << (skipped ? " (" + std::to_string(skipped) + " finished before, skipped)" : "") << ", on " << threads
            << " threads; results in " << c.out << "\n"
            << std::flush;

  ProgressBar bar(::isatty(STDERR_FILENO));
  bar.update(0, pending.size());
  SweepRunOptions options;
  options.out = c.out;
  options.jobs = c.jobs;
  options.stop = &stop;
  options.on_run_done = [&](std::size_t done, std::size_t total) { bar.update(done, total); };
  const SweepRunOutcome outcome = run_all(pending, options);
  if (outcome.interrupted) {
    std::cerr << "\ninterrupted: " << outcome.ran << " runs finished now and are kept in " << runs_dir(c.out)
              << "; rerun with the same options and --resume to continue\n";
    return kExitInterrupted;
  }
  std::cout << "Trained " << outcome.ran << " runs in " << clock_text(bar.seconds()) << " (m:ss)\n";
  report_results(c.out, c.grid, mine, c.plots, c.lang);
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
