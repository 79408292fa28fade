// The papers' diagnostics as figures: at initialisation, each block's gradient and hidden-state norm, the
// last block's gradient against depth; the first step's output change against depth.

#include <algorithm>
#include <cmath>
#include <limits>

#include "figures.hpp"
#include "plot_style.hpp"

namespace tapegrad::lab {

namespace {

// The sublayers of init_grads.csv, in the order they first appear ("ffn.fc2.weight", ...).
std::vector<std::string> sublayers(const Table& init) {
  std::vector<std::string> names;
  if (init.rows.empty()) return {"ffn.fc2.weight"};
  const std::size_t col = init.column("sublayer");
  for (const auto& row : init.rows)
    if (col < row.size() && std::find(names.begin(), names.end(), row[col]) == names.end()) names.push_back(row[col]);
  return names;
}

}  // namespace

Figure init_grads_figure(const SweepGrid& g, const Table& init, Lang lang) {
  const std::size_t deepest = *std::max_element(g.depths.begin(), g.depths.end());
  const std::vector<std::string> names = sublayers(init);
  Figure f;
  f.png = "init_grads.png";
  f.lang = lang;
  f.title = text::init_title.in(lang) + std::to_string(deepest) + text::note_sep.in(lang) + one_run_note(g, lang) +
            text::init_lines.in(lang);
  f.rows = 1, f.cols = static_cast<int>(names.size() + 1), f.width = 470 * f.cols, f.height = 460;
  for (std::size_t panel_index = 0; panel_index <= names.size(); ++panel_index) {
    const bool hidden = panel_index == names.size();
    Panel panel;
    panel.title = hidden ? text::hidden_norm.in(lang) : text::grad_per_block.in(lang) + names[panel_index];
    panel.xlabel = text::block_index.in(lang);
    panel.ylabel = (hidden ? text::hidden_rms : text::grad_norm).in(lang);
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
          if (init.rows[r][sub] == wanted) s.add(csv_number(init.rows[r][block]), csv_number(init.rows[r][value]));
      }
      panel.series.push_back(std::move(s));
    }
    f.panels.push_back(std::move(panel));
  }
  return f;
}

Figure last_block_figure(const SweepGrid& g, const Table& init, Lang lang) {
  const std::vector<std::string> names = sublayers(init);
  Figure f;
  f.png = "last_block_grad.png";
  f.lang = lang;
  f.title = text::last_block_title.in(lang) + averaged_note(g, false, lang) + text::batch_in_note.in(lang) +
            std::to_string(g.batches[0]) + text::last_block_lines.in(lang);
  size_figure(f, names.size(), 560, 420);
  for (const std::string& name : names) {
    Panel panel;
    panel.title = text::w_of_block_before.in(lang) + name + text::w_of_block_after.in(lang);
    panel.xlabel = text::depth_axis.in(lang);
    panel.ylabel = text::grad_norm.in(lang);
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
              if (init.rows[r][sub] == name && csv_number(init.rows[r][block]) == static_cast<double>(depth - 1))
                sum += csv_number(init.rows[r][value]), n += 1;
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
                                "/x) with lines dt (3,3) lw 1.2 lc rgb 'black' title '" + text::slope_through.in(lang) +
                                anchor->name + text::close.in(lang) + "'");
    f.panels.push_back(std::move(panel));
  }
  return f;
}

Figure output_change_figure(const SweepGrid& g, const Table& change, Lang lang) {
  Figure f;
  f.png = "output_change.png";
  f.lang = lang;
  f.title = text::output_change_title.in(lang) + averaged_note(g, true, lang) + text::output_change_lines.in(lang);
  size_figure(f, g.lrs.size() * g.warmups.size(), 470, 420);
  const std::vector<RunConfig> all = expand(g);
  for (double lr : g.lrs)
    for (long w : g.warmups) {
      Panel panel;
      panel.title = text::lr_eq.in(lang) + format_double(lr) + text::warmup_eq.in(lang) + std::to_string(w) +
                    text::first_step_lr.in(lang) +
                    format_double(lr * std::min(1.0, 1.0 / static_cast<double>(std::max<long>(w, 1))));
      panel.xlabel = text::depth_axis.in(lang);
      panel.ylabel = text::output_change_axis.in(lang);
      panel.log_x = panel.log_y = true;
      panel.series = per_depth(g, all, change, "output_change", lr, w,
                                    std::numeric_limits<double>::infinity());
      f.panels.push_back(std::move(panel));
    }
  return f;
}

}  // namespace tapegrad::lab
