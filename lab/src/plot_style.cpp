#include "plot_style.hpp"

#include <algorithm>
#include <cmath>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/run_fields.hpp"

namespace tapegrad::lab {

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

std::string one_run_note(const SweepGrid& g, Lang lang) {
  std::string s = text::seed_is.in(lang) + std::to_string(g.seeds[0]) + text::width_is.in(lang) +
                  std::to_string(g.widths[0]) + text::batch_is.in(lang) + std::to_string(g.batches[0]) +
                  text::note_sep.in(lang) + std::to_string(g.steps[0]) + text::steps_word.in(lang);
  if (g.seeds.size() > 1 || g.widths.size() > 1 || g.batches.size() > 1 || g.steps.size() > 1)
    s += text::first_of_settings.in(lang);
  return s + listed_settings_note(g, lang);
}

std::string listed_settings_note(const SweepGrid& g, Lang lang) {
  std::string s;
  for (const auto& [field, values] : listed_settings(g))
    s += (s.empty() ? "" : text::note_sep.in(lang)) + field->key + " " + Field::text(values[0]);
  return s.empty() ? "" : text::listed_open.in(lang) + s + text::first_listed.in(lang);
}

bool same_settings(const RunConfig& a, const RunConfig& b) {
  for (const Field& f : run_fields())
    if (!f.is_axis() && f.get(a) != f.get(b)) return false;
  return true;
}

std::string averaged_note(const SweepGrid& g, bool over_steps_and_batches, Lang lang, const Phrase& statistic) {
  std::vector<std::string> over;
  if (g.seeds.size() > 1) over.push_back(text::seeds_is.in(lang) + comma_list(g.seeds));
  if (g.widths.size() > 1) over.push_back(text::widths_is.in(lang) + comma_list(g.widths));
  if (over_steps_and_batches && g.steps.size() > 1) over.push_back(text::steps_is.in(lang) + comma_list(g.steps));
  if (over_steps_and_batches && g.batches.size() > 1) over.push_back(text::batches_is.in(lang) + comma_list(g.batches));
  if (over.empty())
    return text::one_run_per_point.in(lang) + std::to_string(g.seeds[0]) + text::width_is.in(lang) +
           std::to_string(g.widths[0]) + listed_settings_note(g, lang);
  std::string s = text::each_point_the.in(lang) + statistic.in(lang) + text::over.in(lang);
  for (std::size_t i = 0; i < over.size(); ++i) s += (i ? text::and_word.in(lang) : "") + over[i];
  return s + listed_settings_note(g, lang);
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

RunConfig first_run(const SweepGrid& g) {
  RunConfig c = g.base;
  c.placement = g.placements[0], c.lr = g.lrs[0], c.warmup = g.warmups[0], c.depth = g.depths[0];
  c.d = g.widths[0], c.steps = g.steps[0], c.batch = g.batches[0], c.seed = g.seeds[0];
  for (const auto& [field, values] : listed_settings(g)) field->set(c, values[0]);  // base's is then no run's
  return c;
}

std::string chance_line(const SweepGrid& g, Lang lang) {
  const double ln_k = std::log(static_cast<double>(g.base.classes));
  return format_double(ln_k) + " with lines dt (8,4) lw 1.2 lc rgb 'black' title '" + text::chance.in(lang) +
         std::to_string(g.base.classes) + " = " + format_double(std::round(ln_k * 1000) / 1000) + "'";
}

double loss_clip(const SweepGrid& g) { return 1.5 * std::log(static_cast<double>(g.base.classes)); }

}  // namespace tapegrad::lab
