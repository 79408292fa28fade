// tapegrad-depth report DIR: rewrites DIR's CSVs, plots, summary and index.html from its runs/
// and sweep.json, for a finished or merged sweep (or one whose index.html is older than it).

#include <filesystem>
#include <iostream>
#include <string>

#include "exit_status.hpp"
#include "report.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab::cli {

int run_report_command(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 3 || std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h") {
    std::cerr << "usage: tapegrad-depth report DIR\n"
                 "  Rewrites DIR/index.html (and its CSVs, plots and summary.txt) for a finished or merged sweep,\n"
                 "  in the language of $TAPEGRAD_LANG (zh*: Chinese, else English).\n";
    return argc == 3 ? kExitDone : kExitBadArguments;
  }
  const std::string dir = argv[2];
  if (!fs::exists(fs::path(dir) / "sweep.json")) {
    std::cerr << "tapegrad-depth: report: '" << dir << "' is not a results folder (no sweep.json)\n";
    return kExitBadArguments;
  }
  try {
    const SweepGrid grid = sweep_grid_from_json(read_file((fs::path(dir) / "sweep.json").string()));
    report_results(dir, grid, expand(grid), /*plots=*/true, lab_language(""));  // $TAPEGRAD_LANG
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-depth: report: " << e.what() << "\n";
    return kExitError;
  }
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
