// tapegrad-depth merge OUT SHARD_DIR...: join the shards' runs into one results folder.
// Every run of the sweep must be finished in exactly one folder (else exit 1, naming the
// runs, before anything is written), unless --allow-partial.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "exit_status.hpp"
#include "report.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/results_store.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

namespace {

struct MergePlan {
  std::vector<std::pair<RunConfig, std::string>> copies;  // run, the folder to take it from
  std::vector<std::string> problems;                      // "missing: <run>", "in two folders: ..."
  std::size_t in_place = 0;                               // runs already in OUT (OUT given as a shard)
};

MergePlan plan_merge(const Command& c) {
  MergePlan plan;
  for (const auto& run : c.runs) {
    std::vector<std::string> found;
    std::string damage;
    for (const auto& dir : c.merge_dirs) {
      const RunCheck check = check_run(dir, run);
      if (check.state == RunCheck::State::finished) found.push_back(dir);
      else if (check.state == RunCheck::State::damaged) damage += "; damaged in " + dir + ": " + check.problem;
    }
    if (found.empty()) plan.problems.push_back("missing: " + run_id(run) + damage);
    else if (found.size() > 1) plan.problems.push_back("in two folders: " + run_id(run) + " (" + found[0] + ", " + found[1] + ")");
    else if (fs::equivalent(fs::absolute(found[0]), fs::absolute(c.out))) ++plan.in_place;
    else plan.copies.emplace_back(run, found[0]);
  }
  return plan;
}

void copy_run(const std::string& from, const std::string& out, const RunConfig& run) {
  const fs::path tmp = fs::path(runs_dir(out)) / (".tmp-" + run_id(run));
  fs::remove_all(tmp);
  fs::copy(run_dir(from, run), tmp, fs::copy_options::recursive);
  fs::remove_all(run_dir(out, run));
  fs::rename(tmp, run_dir(out, run));
}

}  // namespace

int run_merge(const Command& c) {
  const MergePlan plan = plan_merge(c);
  if (!plan.problems.empty()) {
    const std::size_t shown = std::min<std::size_t>(plan.problems.size(), 20);
    std::cerr << (c.allow_partial ? "warning" : "tapegrad-depth: merge") << ": " << plan.problems.size() << " of "
              << c.runs.size() << " runs are not in exactly one of the folders:\n";
    for (std::size_t i = 0; i < shown; ++i) std::cerr << "  " << plan.problems[i] << "\n";
    if (shown < plan.problems.size()) std::cerr << "  ... and " << plan.problems.size() - shown << " more\n";
    if (!c.allow_partial) {
      std::error_code ec;
      if (c.out_created) fs::remove(c.out, ec);  // only if still empty
      std::cerr << "Nothing was written. Pass every shard's folder once, rerun the missing shards (with --resume), "
                   "or pass --allow-partial to merge what there is.\n";
      return kExitError;
    }
  }
  fs::create_directories(runs_dir(c.out));
  for (const auto& [run, from] : plan.copies) copy_run(from, c.out, run);
  sync_directory(runs_dir(c.out));
  write_file_atomically((fs::path(c.out) / "sweep.json").string(), to_json(c.grid));
  std::cout << "merge: " << plan.copies.size() + plan.in_place << " runs from " << c.merge_dirs.size()
            << " folders into " << c.out << "\n";
  report_results(c.out, c.grid, c.runs, c.plots, c.lang);
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
