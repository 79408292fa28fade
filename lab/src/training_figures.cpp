// The training figures: loss curves per (lr, warmup), and the final eval loss against depth.

#include <cmath>
#include <vector>

#include "figures.hpp"
#include "plot_style.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/summary.hpp"

namespace tapegrad::lab {

Figure curves_figure(const SweepGrid& g, const Table& curves, double lr, long warmup, const std::string& png,
                     Lang lang) {
  static const char* const palette[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
                                        "#666666"};
  Figure f;
  f.png = png;
  f.lang = lang;
  f.title = text::curves_title.in(lang) + format_double(lr) + text::warmup_eq.in(lang) + std::to_string(warmup) +
            text::one_run_per_line.in(lang) + one_run_note(g, lang);
  size_figure(f, g.placements.size(), 440, 390);
  const std::size_t step_col = curves.rows.empty() ? 0 : curves.column("step");
  const std::size_t loss_col = curves.rows.empty() ? 0 : curves.column("loss");
  for (auto p : g.placements) {
    Panel panel;
    panel.title = nn::to_string(p);
    panel.xlabel = text::step.in(lang);
    panel.ylabel = text::loss.in(lang);
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
        s.add(csv_number(curves.rows[r][step_col]), csv_number(curves.rows[r][loss_col]), panel.clip_top);
      panel.series.push_back(std::move(s));
    }
    panel.functions.push_back(chance_line(g, lang));
    f.panels.push_back(std::move(panel));
  }
  return f;
}

std::vector<Series> per_depth(const SweepGrid& g, const std::vector<RunConfig>& all, const Table& table,
                              const std::string& column, double lr, long warmup, double clip_top, PerDepth statistic) {
  std::vector<Series> lines;
  const RunConfig drawn = first_run(g);  // the listed settings' first values
  const std::size_t col = table.rows.empty() ? 0 : table.column(column);
  for (std::size_t i = 0; i < g.placements.size(); ++i) {
    Series s = placement_series(g.placements[i], i, g.placements.size(), kOctaveOffset);
    for (std::size_t depth : g.depths) {
      std::vector<double> values;
      for (const RunConfig& c : all)
        if (c.placement == g.placements[i] && c.lr == lr && c.warmup == warmup && c.depth == depth &&
            same_settings(c, drawn))
          for (std::size_t r : rows_of(table, c)) values.push_back(csv_number(table.rows[r][col]));
      if (values.empty()) continue;
      double sum = 0;
      for (double v : values) sum += v;
      s.add(static_cast<double>(depth),
            statistic == PerDepth::median ? median_eval_loss(values) : sum / static_cast<double>(values.size()),
            clip_top);
    }
    lines.push_back(std::move(s));
  }
  return lines;
}

Figure eval_vs_depth_figure(const SweepGrid& g, const Table& runs, Lang lang) {
  Figure f;
  f.png = "eval_vs_depth.png";
  f.lang = lang;
  f.title = text::eval_vs_depth_title.in(lang) + averaged_note(g, true, lang, text::median) +
            text::eval_vs_depth_lines.in(lang);
  size_figure(f, g.lrs.size() * g.warmups.size(), 470, 420);
  const std::vector<RunConfig> all = expand(g);
  const LossThresholds thresholds = loss_thresholds(g.base);  // a text task's: its baselines (text_run.hpp)
  const double threshold = thresholds.collapsed;
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      Panel panel;
      panel.title = text::lr_eq.in(lang) + format_double(lr) + text::warmup_eq.in(lang) + std::to_string(w);
      panel.xlabel = text::depth_axis.in(lang);
      panel.ylabel = text::eval_loss.in(lang);
      panel.log_x = true;
      panel.clip_top = loss_clip(g);
      panel.series = per_depth(g, all, runs, "eval_loss", lr, w, panel.clip_top, PerDepth::median);
      panel.functions.push_back(chance_line(g, lang));
      const double trained = thresholds.trained;
      panel.functions.push_back(format_double(trained) + " with lines dt (1,2) lw 1.2 lc rgb '#888888' title " +
                                "'" + text::trained_below.in(lang) + format_double(std::round(trained * 1000) / 1000) + "'");
      panel.functions.push_back(format_double(threshold) + " with lines dt (2,3) lw 1.2 lc rgb '#888888' title " +
                                "'" + text::failed_above.in(lang) + format_double(std::round(threshold * 1000) / 1000) + "'");
      f.panels.push_back(std::move(panel));
    }
  return f;
}

}  // namespace tapegrad::lab
