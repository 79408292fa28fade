#pragma once
// The lab's figures (plots.hpp lists them), each built from the assembled CSVs as a Figure (plot_figure.hpp):
//   training_figures.cpp     the loss curves and the final eval loss against depth
//   diagnostic_figures.cpp   the papers' diagnostics: initial gradients per block, the last block's gradient
//                            against depth, the output change against depth

#include <string>
#include <vector>

#include "csv_table.hpp"
#include "tapegrad/lab/plot_figure.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

// One line per placement: at each depth, the mean (or the median) of `column` over the grid's runs of that
// placement, lr and warmup (every seed, width, steps and batch). A NaN/Inf among them, or a point above
// clip_top, is a clipped marker (the median counts a NaN/Inf as +inf, as the summary's verdict does).
enum class PerDepth { mean, median };
std::vector<Series> per_depth(const SweepGrid& grid, const std::vector<RunConfig>& all, const Table& table,
                              const std::string& column, double lr, long warmup, double clip_top,
                              PerDepth statistic = PerDepth::mean);

// Each in `lang` (lab_text.hpp): titles, axis labels and keys; the data are the same.
Figure curves_figure(const SweepGrid& grid, const Table& curves, double lr, long warmup, const std::string& png,
                     Lang lang = Lang::en);
Figure eval_vs_depth_figure(const SweepGrid& grid, const Table& runs, Lang lang = Lang::en);
Figure init_grads_figure(const SweepGrid& grid, const Table& init, Lang lang = Lang::en);
Figure last_block_figure(const SweepGrid& grid, const Table& init, Lang lang = Lang::en);
Figure output_change_figure(const SweepGrid& grid, const Table& change, Lang lang = Lang::en);

}  // namespace tapegrad::lab
