#include "report.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/html_report.hpp"
#include "tapegrad/lab/plots.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/summary.hpp"

namespace tapegrad::lab::cli {

namespace fs = std::filesystem;

namespace {

// The figures of an earlier report that this one does not draw (another sweep's learning rates, or all of them
// under --no-plots): removed, so that index.html, which shows every PNG in the folder, shows none of them. A
// figure is the lab's when its gnuplot script X.gp is beside it; other files in the folder are left alone.
void remove_stale_figures(const std::string& out, const std::vector<std::string>& scripts_now) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(out, ec))
    if (entry.path().extension() == ".gp" &&
        std::find(scripts_now.begin(), scripts_now.end(), entry.path().filename().string()) == scripts_now.end())
      stale.push_back(entry.path());
  for (const fs::path& script : stale) {
    fs::remove(fs::path(script).replace_extension(".png"), ec);
    fs::remove(script, ec);
  }
}

void draw_plots(const std::string& out, const SweepGrid& grid, Lang lang) {
  const auto scripts = write_plot_scripts(out, grid, lang);
  remove_stale_figures(out, scripts);
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    std::cerr << "warning: gnuplot not found; skipping the plots (the scripts are in " << out
              << "; install gnuplot-nox and run them there)\n";
    return;
  }
  const std::string problems = render_plots(out, scripts, gnuplot);
  if (!problems.empty()) std::cerr << "warning: " << problems << "\n";
  else std::cout << "Plots: " << out << "/{curves_lr*_w*,eval_vs_depth,init_grads,last_block_grad,output_change}.png (scripts: *.gp)\n";
}

}  // namespace

void report_results(const std::string& out, const SweepGrid& grid, const std::vector<RunConfig>& runs, bool plots,
                    Lang lang) {
  const Assembly a = assemble(out, runs);
  if (a.missing) std::cerr << "warning: " << a.missing << " runs have no results in " << runs_dir(out) << "\n";
  std::cout << "Wrote " << (fs::path(out) / "runs.csv").string() << ", curves.csv, init_grads.csv, output_change.csv (" << a.outcomes.size()
            << " runs)\n";
  if (plots) draw_plots(out, grid, lang);
  else remove_stale_figures(out, {});
  const std::string table = summary_table(grid, a.outcomes, lang), counts = run_counts(a.outcomes, lang);
  write_file_atomically((fs::path(out) / "summary.txt").string(), table);
  std::cout << "\n" << table << counts;
  std::cout << "Page: " << write_html_report(out, grid, a.outcomes, table + counts, lang) << " (open it in a browser)\n";
}

}  // namespace tapegrad::lab::cli
