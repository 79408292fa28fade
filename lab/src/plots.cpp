#include "tapegrad/lab/plots.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/plot_figure.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

namespace {

// ---- the assembled CSVs, read back ----

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::vector<std::size_t>> rows_of_run;  // by the "run" column

  std::size_t column(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw Error("plots: the CSV has no column '" + name + "'");
    return static_cast<std::size_t>(it - header.begin());
  }
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> parts(1);
  for (char ch : line) {
    if (ch == ',') parts.emplace_back();
    else parts.back().push_back(ch);
  }
  return parts;
}

// An empty table if the file does not exist (a sweep without runs yet).
Table read_table(const fs::path& path) {
  Table t;
  if (!fs::exists(path)) return t;
  std::istringstream in(read_file(path.string()));
  std::string line;
  if (std::getline(in, line)) t.header = split_csv_line(line);
  while (std::getline(in, line)) {
    t.rows.push_back(split_csv_line(line));
    if (!t.rows.back().empty()) t.rows_of_run[t.rows.back()[0]].push_back(t.rows.size() - 1);
  }
  return t;
}

double number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }  // reads nan, inf too

// The rows of a run (none if it has not finished).
const std::vector<std::size_t>& rows_of(const Table& t, const RunConfig& run) {
  static const std::vector<std::size_t> none;
  const auto it = t.rows_of_run.find(run_id(run));
  return it == t.rows_of_run.end() ? none : it->second;
}

// ---- the same look for a placement in every figure ----

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

// Distinct markers and dashes too, so that lines stay apart in grey print and where they cross.
std::string placement_style(nn::Placement p) {
  const auto i = static_cast<std::size_t>(p);
  static const char* const points[] = {"7", "5", "13", "6", "4", "12"};
  static const char* const dashes[] = {"1", "2", "4", "(6,3,2,3)", "5", "(2,4)"};
  return std::string("with linespoints lw 1.5 ps 0.9 pt ") + points[i % 6] + " dt " + dashes[i % 6] + " lc rgb '" +
         colour(p) + "'";
}

Series placement_series(nn::Placement p, std::size_t index, std::size_t count, double step) {
  Series s;
  s.name = nn::to_string(p);
  s.title = s.name;
  s.style = placement_style(p);
  s.colour = colour(p);
  s.x_offset = step * (static_cast<double>(index) - 0.5 * static_cast<double>(count - 1));
  return s;
}

constexpr double kOctaveOffset = 0.04;  // sideways shift per placement on depth axes (log 2)
constexpr double kBlockOffset = 0.07;   // on block-index axes

template <class T>
std::string list(const std::vector<T>& values) {
  std::ostringstream s;
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  return s.str();
}

// Which run a per-run plot shows: "seed 0, d = 32, batch 64, 200 steps" (and that it is the first of several).
std::string one_run_note(const SweepGrid& g) {
  std::string s = "seed " + std::to_string(g.seeds[0]) + ", d = " + std::to_string(g.widths[0]) + ", batch " +
                  std::to_string(g.batches[0]) + ", " + std::to_string(g.steps[0]) + " steps";
  if (g.seeds.size() > 1 || g.widths.size() > 1 || g.batches.size() > 1 || g.steps.size() > 1)
    s += " (the first of the sweep's settings)";
  return s;
}

// What each point of an aggregated plot is: one run, or the mean over the listed settings.
std::string averaged_note(const SweepGrid& g, bool over_steps_and_batches) {
  std::vector<std::string> over;
  if (g.seeds.size() > 1) over.push_back("seeds " + list(g.seeds));
  if (g.widths.size() > 1) over.push_back("widths " + list(g.widths));
  if (over_steps_and_batches && g.steps.size() > 1) over.push_back("steps " + list(g.steps));
  if (over_steps_and_batches && g.batches.size() > 1) over.push_back("batches " + list(g.batches));
  if (over.empty())
    return "one run per point: seed " + std::to_string(g.seeds[0]) + ", d = " + std::to_string(g.widths[0]);
  std::string s = "each point the mean over ";
  for (std::size_t i = 0; i < over.size(); ++i) s += (i ? " and " : "") + over[i];
  return s;
}

std::pair<int, int> layout(std::size_t panels) {
  const int cols = panels <= 2 ? static_cast<int>(std::max<std::size_t>(panels, 1)) : (panels == 4 ? 2 : 3);
  return {static_cast<int>((std::max<std::size_t>(panels, 1) + cols - 1) / cols), cols};
}

void size_figure(Figure& f, std::size_t panels, int panel_width, int panel_height) {
  const auto [rows, cols] = layout(panels);
  f.rows = rows, f.cols = cols, f.height = panel_height * rows + 40;
  f.width = std::max(panel_width * cols, 960);  // room for the two-line figure title
}

// Runs of the grid with the given fields; the rest at the first of their lists unless `all_of`.
RunConfig first_run(const SweepGrid& g) {
  RunConfig c = g.base;
  c.placement = g.placements[0], c.lr = g.lrs[0], c.warmup = g.warmups[0], c.depth = g.depths[0];
  c.d = g.widths[0], c.steps = g.steps[0], c.batch = g.batches[0], c.seed = g.seeds[0];
  return c;
}

std::string chance_line(const SweepGrid& g) {
  const double ln_k = std::log(static_cast<double>(g.base.classes));
  return format_double(ln_k) + " with lines dt (8,4) lw 1.2 lc rgb 'black' title 'chance: ln K = ln " +
         std::to_string(g.base.classes) + " = " + format_double(std::round(ln_k * 1000) / 1000) + "'";
}

double loss_clip(const SweepGrid& g) { return 1.5 * std::log(static_cast<double>(g.base.classes)); }

// ---- the figures ----

Figure curves_figure(const SweepGrid& g, const Table& curves, double lr, long warmup, const std::string& png) {
  static const char* const palette[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
                                        "#666666"};
  Figure f;
  f.png = png;
  f.title = "training loss (minibatch) against step at lr = " + format_double(lr) + ", warmup = " +
            std::to_string(warmup) + "\none run per line: " + one_run_note(g);
  size_figure(f, g.placements.size(), 440, 390);
  const std::size_t step_col = curves.rows.empty() ? 0 : curves.column("step");
  const std::size_t loss_col = curves.rows.empty() ? 0 : curves.column("loss");
  for (auto p : g.placements) {
    Panel panel;
    panel.title = nn::to_string(p);
    panel.xlabel = "step";
    panel.ylabel = "loss";
    panel.clip_top = loss_clip(g);
    panel.x_extent = {0.0, static_cast<double>(g.steps[0])};
    for (std::size_t k = 0; k < g.depths.size(); ++k) {
      RunConfig c = first_run(g);
      c.placement = p, c.lr = lr, c.warmup = warmup, c.depth = g.depths[k];
      Series s;
      s.name = "L=" + std::to_string(g.depths[k]);
      s.title = s.name;
      s.colour = palette[k % 8];
      s.style = "with lines lw 1.2 dt " + std::to_string(1 + k % 5) + " lc rgb '" + s.colour + "'";
      for (std::size_t r : rows_of(curves, c))
        s.add(number(curves.rows[r][step_col]), number(curves.rows[r][loss_col]), panel.clip_top);
      panel.series.push_back(std::move(s));
    }
    panel.functions.push_back(chance_line(g));
    f.panels.push_back(std::move(panel));
  }
  return f;
}

// One line per placement: at each depth, the mean of `column` over the grid's runs of that placement,
// lr and warmup (every seed, width, steps and batch). A NaN/Inf among them, or a mean above clip_top, is
// a clipped marker.
std::vector<Series> mean_per_depth(const SweepGrid& g, const std::vector<RunConfig>& all, const Table& table,
                                   const std::string& column, double lr, long warmup, double clip_top) {
  std::vector<Series> lines;
  const std::size_t col = table.rows.empty() ? 0 : table.column(column);
  for (std::size_t i = 0; i < g.placements.size(); ++i) {
    Series s = placement_series(g.placements[i], i, g.placements.size(), kOctaveOffset);
    for (std::size_t depth : g.depths) {
      double sum = 0, n = 0;
      for (const RunConfig& c : all)
        if (c.placement == g.placements[i] && c.lr == lr && c.warmup == warmup && c.depth == depth)
          for (std::size_t r : rows_of(table, c)) sum += number(table.rows[r][col]), n += 1;
      if (n > 0) s.add(static_cast<double>(depth), sum / n, clip_top);
    }
    lines.push_back(std::move(s));
  }
  return lines;
}

Figure eval_vs_depth_figure(const SweepGrid& g, const Table& runs) {
  Figure f;
  f.png = "eval_vs_depth.png";
  f.title = "final eval loss against depth (" + averaged_note(g, true) +
            ")\nabove the grey line the run failed; markers offset sideways per placement";
  size_figure(f, g.lrs.size() * g.warmups.size(), 470, 420);
  const std::vector<RunConfig> all = expand(g);
  const double threshold = collapse_threshold(g.base.classes);
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      Panel panel;
      panel.title = "lr = " + format_double(lr) + ", warmup = " + std::to_string(w);
      panel.xlabel = "depth L (blocks)";
      panel.ylabel = "eval loss";
      panel.log_x = true;
      panel.clip_top = loss_clip(g);
      panel.series = mean_per_depth(g, all, runs, "eval_loss", lr, w, panel.clip_top);
      panel.functions.push_back(chance_line(g));
      panel.functions.push_back(format_double(threshold) + " with lines dt (2,3) lw 1.2 lc rgb '#888888' title " +
                                "'failed above 0.7 ln K = " + format_double(std::round(threshold * 1000) / 1000) + "'");
      f.panels.push_back(std::move(panel));
    }
  return f;
}

// The sublayers of init_grads.csv, in the order they first appear ("ffn.fc2.weight", ...).
std::vector<std::string> sublayers(const Table& init) {
  std::vector<std::string> names;
  if (init.rows.empty()) return {"ffn.fc2.weight"};
  const std::size_t col = init.column("sublayer");
  for (const auto& row : init.rows)
    if (col < row.size() && std::find(names.begin(), names.end(), row[col]) == names.end()) names.push_back(row[col]);
  return names;
}

Figure init_grads_figure(const SweepGrid& g, const Table& init) {
  const std::size_t deepest = *std::max_element(g.depths.begin(), g.depths.end());
  const std::vector<std::string> names = sublayers(init);
  Figure f;
  f.png = "init_grads.png";
  f.title = "at initialisation, on the first minibatch: L = " + std::to_string(deepest) + ", " + one_run_note(g) +
            "\n(the same for every lr and warmup); markers offset sideways per placement";
  size_figure(f, names.size() + 1, 470, 360);
  f.rows = 1, f.cols = static_cast<int>(names.size() + 1), f.width = 470 * f.cols, f.height = 460;
  for (std::size_t panel_index = 0; panel_index <= names.size(); ++panel_index) {
    const bool hidden = panel_index == names.size();
    Panel panel;
    panel.title = hidden ? "hidden-state norm after each block" : "||dL/dW|| per block, W = " + names[panel_index];
    panel.xlabel = "block index l";
    panel.ylabel = hidden ? "RMS over the batch of ||h_l||" : "gradient norm (Frobenius)";
    panel.log_y = true;
    panel.x_extent = {0.0, static_cast<double>(deepest - 1)};
    for (std::size_t i = 0; i < g.placements.size(); ++i) {
      RunConfig c = first_run(g);
      c.placement = g.placements[i], c.depth = deepest;
      Series s = placement_series(g.placements[i], i, g.placements.size(), kBlockOffset);
      if (!init.rows.empty()) {
        const std::size_t block = init.column("block"), sub = init.column("sublayer");
        const std::size_t value = init.column(hidden ? "hidden_norm" : "weight_grad_norm");
        const std::string& wanted = names[hidden ? 0 : panel_index];
        for (std::size_t r : rows_of(init, c))
          if (init.rows[r][sub] == wanted) s.add(number(init.rows[r][block]), number(init.rows[r][value]));
      }
      panel.series.push_back(std::move(s));
    }
    f.panels.push_back(std::move(panel));
  }
  return f;
}

Figure last_block_figure(const SweepGrid& g, const Table& init) {
  const std::vector<std::string> names = sublayers(init);
  Figure f;
  f.png = "last_block_grad.png";
  f.title = "at initialisation: the last block's ||dL/dW|| against depth (" + averaged_note(g, false) +
            "; batch " + std::to_string(g.batches[0]) + ")\nXiong et al. 2020, Thm. 1: Post-Norm's does not shrink "
            "with L, Pre-Norm's shrinks like 1/sqrt(L); markers offset sideways per placement";
  size_figure(f, names.size(), 560, 420);
  for (const std::string& name : names) {
    Panel panel;
    panel.title = "W = " + name + " of block L-1";
    panel.xlabel = "depth L (blocks)";
    panel.ylabel = "gradient norm (Frobenius)";
    panel.log_x = panel.log_y = true;
    for (std::size_t i = 0; i < g.placements.size(); ++i) {
      Series s = placement_series(g.placements[i], i, g.placements.size(), kOctaveOffset);
      for (std::size_t depth : g.depths) {
        double sum = 0, n = 0;
        for (std::size_t w : g.widths)
          for (std::uint64_t seed : g.seeds) {
            RunConfig c = first_run(g);
            c.placement = g.placements[i], c.depth = depth, c.d = w, c.seed = seed;
            if (init.rows.empty()) continue;
            const std::size_t block = init.column("block"), sub = init.column("sublayer");
            const std::size_t value = init.column("weight_grad_norm");
            for (std::size_t r : rows_of(init, c))
              if (init.rows[r][sub] == name && number(init.rows[r][block]) == static_cast<double>(depth - 1))
                sum += number(init.rows[r][value]), n += 1;
          }
        if (n > 0) s.add(static_cast<double>(depth), sum / n);
      }
      panel.series.push_back(std::move(s));
    }
    // The reference slope through Pre-Norm's first point (else through the first placement drawn).
    const Series* anchor = nullptr;
    for (const Series& s : panel.series)
      if (!s.points.empty() && s.points.front().second > 0 && (!anchor || s.name == "pre")) {
        anchor = &s;
        if (s.name == "pre") break;
      }
    if (anchor)
      panel.functions.push_back(format_double(anchor->points.front().second) + "*sqrt(" +
                                format_double(anchor->points.front().first) +
                                "/x) with lines dt (3,3) lw 1.2 lc rgb 'black' title 'slope 1/sqrt(L) (through " +
                                anchor->name + ")'");
    f.panels.push_back(std::move(panel));
  }
  return f;
}

Figure output_change_figure(const SweepGrid& g, const Table& change) {
  Figure f;
  f.png = "output_change.png";
  f.title = "how far the first Adam step moves the output: RMS over the probe batch of ||f(x;theta_1) - f(x;theta_0)||"
            "\n(f = the logits; " + averaged_note(g, true) + ")\nLiu et al. 2020: Post-Norm's grows with depth; markers offset sideways per placement";
  size_figure(f, g.lrs.size() * g.warmups.size(), 470, 420);
  const std::vector<RunConfig> all = expand(g);
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      Panel panel;
      panel.title = "lr = " + format_double(lr) + ", warmup = " + std::to_string(w) + ": first step's lr " +
                    format_double(lr * std::min(1.0, 1.0 / static_cast<double>(std::max<long>(w, 1))));
      panel.xlabel = "depth L (blocks)";
      panel.ylabel = "output change (RMS)";
      panel.log_x = panel.log_y = true;
      panel.series = mean_per_depth(g, all, change, "output_change", lr, w,
                                    std::numeric_limits<double>::infinity());
      f.panels.push_back(std::move(panel));
    }
  return f;
}

}  // namespace

std::vector<std::string> write_plot_scripts(const std::string& out, const SweepGrid& g) {
  const fs::path dir(out);
  const Table runs = read_table(dir / "runs.csv"), curves = read_table(dir / "curves.csv"),
              init = read_table(dir / "init_grads.csv"), change = read_table(dir / "output_change.csv");
  std::vector<std::pair<std::string, Figure>> figures;
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      const std::string stem = "curves_lr" + format_double(lr) + "_w" + std::to_string(w);
      figures.push_back({stem + ".gp", curves_figure(g, curves, lr, w, stem + ".png")});
    }
  figures.push_back({"eval_vs_depth.gp", eval_vs_depth_figure(g, runs)});
  figures.push_back({"init_grads.gp", init_grads_figure(g, init)});
  figures.push_back({"last_block_grad.gp", last_block_figure(g, init)});
  figures.push_back({"output_change.gp", output_change_figure(g, change)});
  std::vector<std::string> names;
  for (const auto& [name, figure] : figures) {
    write_file_atomically((dir / name).string(), figure.script());
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
