#include "tapegrad/lab/plots.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/files.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

namespace {

const char* const kPreamble =
    "# Written by tapegrad-depth; run from this folder: gnuplot <this file>\n"
    "set datafile separator ','\n"
    "set key autotitle columnhead\n"
    "set grid lc rgb '#dddddd'\n";

// The same colour for a placement in every figure.
std::string colour(nn::Placement p) {
  switch (p) {
    case nn::Placement::post: return "#d62728";
    case nn::Placement::pre: return "#1f77b4";
    case nn::Placement::deepnorm: return "#2ca02c";
    case nn::Placement::rezero: return "#9467bd";
    case nn::Placement::sandwich: return "#ff7f0e";
    case nn::Placement::none: return "#7f7f7f";
  }
  return "black";
}

// A column that may read "nan"/"inf", clipped to `top` so failed runs stay visible.
std::string clipped(int column, double top) {
  std::ostringstream s;
  s << "((strcol(" << column << ") eq 'nan' || strcol(" << column << ") eq 'inf' || $" << column << " > " << top
    << ") ? " << top << " : $" << column << ")";
  return s.str();
}

std::pair<int, int> layout(std::size_t panels) {
  const int cols = panels <= 2 ? static_cast<int>(panels) : (panels == 4 ? 2 : 3);
  return {static_cast<int>((panels + cols - 1) / cols), cols};
}

std::string curves_script(const SweepGrid& g, double lr, long warmup, const std::string& png) {
  const double ln_k = std::log(static_cast<double>(g.base.classes));
  const auto [rows, cols] = layout(g.placements.size());
  std::ostringstream s;
  s << kPreamble << "set terminal pngcairo size " << 420 * cols << "," << 320 * rows << " font 'sans,9'\n"
    << "set output '" << png << "'\n"
    << "set multiplot layout " << rows << "," << cols << " title 'training loss (minibatch), lr = "
    << format_double(lr) << ", warmup = " << warmup << " steps; dashed: ln K'\n"
    << "set xlabel 'step'\nset ylabel 'loss'\nset yrange [0:" << 1.5 * ln_k << "]\nset key top right\n";
  for (auto p : g.placements) {
    s << "set title '" << nn::to_string(p) << "'\nplot " << ln_k << " dt 2 lc rgb 'black' notitle";
    for (std::size_t k = 0; k < g.depths.size(); ++k) {
      RunConfig c = g.base;
      c.placement = p, c.lr = lr, c.warmup = warmup, c.depth = g.depths[k], c.d = g.widths[0];
      c.steps = g.steps[0], c.batch = g.batches[0], c.seed = g.seeds[0];
      s << ", \\\n  'curves.csv' using 8:(strcol(1) eq '" << run_id(c) << "' ? " << clipped(9, 1.5 * ln_k)
        << " : 1/0) with lines lw 1.2 title 'L=" << g.depths[k] << "'";
    }
    s << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

std::string eval_vs_depth_script(const SweepGrid& g) {
  const double ln_k = std::log(static_cast<double>(g.base.classes));
  const double top = 1.5 * ln_k;
  const auto [rows, cols] = layout(g.lrs.size() * g.warmups.size());
  std::ostringstream s;
  s << kPreamble << "set terminal pngcairo size " << 460 * cols << "," << 340 * rows << " font 'sans,9'\n"
    << "set output 'eval_vs_depth.png'\n"
    << "set multiplot layout " << rows << "," << cols
    << " title 'final eval loss against depth (above the dashed line 0.7 ln K: failed; NaN drawn at the top)'\n"
    << "set logscale x 2\nset xlabel 'depth L (blocks)'\nset ylabel 'eval loss'\nset yrange [0:" << top
    << "]\nset key top left\n";
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      s << "set title 'lr = " << format_double(lr) << ", warmup = " << w << "'\nplot " << collapse_threshold(g.base.classes)
        << " dt 2 lc rgb 'black' notitle";
      for (auto p : g.placements)
        s << ", \\\n  'runs.csv' using 3:((strcol(2) eq '" << nn::to_string(p) << "' && $5 == " << format_double(lr)
          << " && $6 == " << w << ") ? " << clipped(11, top) << " : 1/0) smooth unique with linespoints lw 1.5 pt 7 lc rgb '"
          << colour(p) << "' title '" << nn::to_string(p) << "'";
      s << "\n";
    }
  s << "unset multiplot\n";
  return s.str();
}

std::string init_grads_script(const SweepGrid& g) {
  const std::size_t deepest = g.depths.back();
  RunConfig c = g.base;
  c.lr = g.lrs[0], c.warmup = g.warmups[0], c.depth = deepest, c.d = g.widths[0];
  c.steps = g.steps[0], c.batch = g.batches[0], c.seed = g.seeds[0];
  std::ostringstream s;
  s << kPreamble << "set terminal pngcairo size 1380,400 font 'sans,9'\nset output 'init_grads.png'\n"
    << "set multiplot layout 1,3 title 'at initialisation, on the first minibatch (rezero: fc2 gradient is 0, alpha = 0)'\n"
    << "set logscale y\nset key outside right\nset xlabel 'block index l'\n"
    << "set title '||dL/d fc2.weight|| per block, L = " << deepest << "'\nset ylabel 'gradient norm'\nplot ";
  auto per_block = [&](int column) {
    std::string sep;
    for (auto p : g.placements) {
      c.placement = p;
      s << sep << "'init_grads.csv' using 8:(strcol(1) eq '" << run_id(c) << "' && $" << column << " > 0 ? $" << column
        << " : 1/0) with linespoints pt 7 ps 0.6 lc rgb '" << colour(p) << "' title '" << nn::to_string(p) << "'";
      sep = ", \\\n  ";
    }
    s << "\n";
  };
  per_block(9);
  s << "set title 'hidden-state norm after each block, L = " << deepest << "'\nset ylabel 'RMS ||h_l||'\nplot ";
  per_block(10);
  s << "set title 'last block: ||dL/d fc2.weight|| against depth'\nset logscale x 2\nset xlabel 'depth L'\n"
    << "set ylabel 'gradient norm'\nplot ";
  std::string sep;
  for (auto p : g.placements) {
    s << sep << "'init_grads.csv' using 3:((strcol(2) eq '" << nn::to_string(p) << "' && $8 == $3 - 1 && $9 > 0) ? $9 : 1/0)"
      << " smooth unique with linespoints pt 7 lc rgb '" << colour(p) << "' title '" << nn::to_string(p) << "'";
    sep = ", \\\n  ";
  }
  s << "\nunset multiplot\n";
  return s.str();
}

}  // namespace

std::vector<std::string> write_plot_scripts(const std::string& out, const SweepGrid& g) {
  std::vector<std::pair<std::string, std::string>> scripts;
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      const std::string stem = "curves_lr" + format_double(lr) + "_w" + std::to_string(w);
      scripts.push_back({stem + ".gp", curves_script(g, lr, w, stem + ".png")});
    }
  scripts.push_back({"eval_vs_depth.gp", eval_vs_depth_script(g)});
  scripts.push_back({"init_grads.gp", init_grads_script(g)});
  std::vector<std::string> names;
  for (const auto& [name, text] : scripts) {
    write_file_atomically((fs::path(out) / name).string(), text);
    names.push_back(name);
  }
  return names;
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

namespace {
// 'text' for a POSIX shell.
std::string shell_quote(const std::string& text) {
  std::string q = "'";
  for (char ch : text) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}
}  // namespace

std::string render_plots(const std::string& out, const std::vector<std::string>& scripts, const std::string& gnuplot) {
  std::string problems;
  for (const auto& script : scripts) {
    const std::string log = script + ".log";
    const std::string cmd = "cd " + shell_quote(out) + " && " + shell_quote(gnuplot) + " " + shell_quote(script) +
                            " > " + shell_quote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) problems += "gnuplot failed on " + script + " (see " + log + "); ";
    else fs::remove(fs::path(out) / log);  // only gnuplot's complaints about log scales and such
  }
  return problems;
}

}  // namespace tapegrad::lab
