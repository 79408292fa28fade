#pragma once
// The look every figure shares: a placement's colour, marker and dash, the sideways offsets that keep equal
// series visible, the notes that say what a line shows, panel layout, and the loss plots' reference lines.

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tapegrad/lab/plot_figure.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

std::string colour(nn::Placement placement);
// "with linespoints ... pt 7 dt 1 lc rgb '#d62728'": distinct markers and dashes too, so that lines stay apart
// in grey print and where they cross.
std::string placement_style(nn::Placement placement);
// The series of placement `index` of `count`, shifted sideways by `step` per placement.
Series placement_series(nn::Placement placement, std::size_t index, std::size_t count, double step);

constexpr double kOctaveOffset = 0.04;  // sideways shift per placement on depth axes (log 2)
constexpr double kBlockOffset = 0.07;   // on block-index axes

template <class T>
std::string comma_list(const std::vector<T>& values) {
  std::ostringstream s;
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  return s.str();
}

// Which run a per-run plot shows: "seed 0, d = 32, batch 64, 200 steps" (and that it is the first of several).
std::string one_run_note(const SweepGrid& grid, Lang lang);
// What each point of an aggregated plot is: one run, or the mean (statistic) over the listed settings.
std::string averaged_note(const SweepGrid& grid, bool over_steps_and_batches, Lang lang,
                          const Phrase& statistic = text::mean);

// rows × cols for a number of panels, and the figure's size from them.
std::pair<int, int> layout(std::size_t panels);
void size_figure(Figure& figure, std::size_t panels, int panel_width, int panel_height);

// The grid's first run: every axis at the first value of its list (a figure then sets the fields it varies).
RunConfig first_run(const SweepGrid& grid);
// The figures draw the first value of each setting a sweep lists (--precisions fp64,fp16: fp64), as a
// mean over such values would mix them (and one NaN run would hide the rest): "; precision fp64 (the first
// listed: ...)", or "" when none is listed.
std::string listed_settings_note(const SweepGrid& grid, Lang lang);
// Whether two runs have the same settings (the fields that are not swept axes).
bool same_settings(const RunConfig& a, const RunConfig& b);

// The chance level ln K as a labelled dashed line, and the top of a loss panel (1.5 ln K).
std::string chance_line(const SweepGrid& grid, Lang lang);
double loss_clip(const SweepGrid& grid);

}  // namespace tapegrad::lab
