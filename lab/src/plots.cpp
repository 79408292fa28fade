// The list of the lab's figures: which scripts a results folder gets (the figures themselves are in
// training_figures.cpp and diagnostic_figures.cpp, gnuplot is run by gnuplot_runner.cpp).

#include "tapegrad/lab/plots.hpp"

#include <filesystem>

#include "figures.hpp"
#include "tapegrad/lab/files.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

std::vector<std::string> write_plot_scripts(const std::string& out, const SweepGrid& g, Lang lang) {
  const fs::path dir(out);
  const Table runs = read_table(dir / "runs.csv"), curves = read_table(dir / "curves.csv"),
              init = read_table(dir / "init_grads.csv"), change = read_table(dir / "output_change.csv");
  std::vector<std::pair<std::string, Figure>> figures;
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      const std::string stem = "curves_lr" + format_double(lr) + "_w" + std::to_string(w);
      figures.push_back({stem + ".gp", curves_figure(g, curves, lr, w, stem + ".png", lang)});
    }
  figures.push_back({"eval_vs_depth.gp", eval_vs_depth_figure(g, runs, lang)});
  if (g.base.task == Task::synthetic) {  // a text task's runs record no diagnostics at init (text_run.hpp)
    figures.push_back({"init_grads.gp", init_grads_figure(g, init, lang)});
    figures.push_back({"last_block_grad.gp", last_block_figure(g, init, lang)});
    figures.push_back({"output_change.gp", output_change_figure(g, change, lang)});
  }
  std::vector<std::string> names;
  for (const auto& [name, figure] : figures) {
    write_file_atomically((dir / name).string(), figure.script());
    names.push_back(name);
  }
  return names;
}

}  // namespace tapegrad::lab
