#pragma once
// The lab's figures, drawn by gnuplot from the assembled CSVs. The scripts are
// written next to the data (OUT/*.gp), so `cd OUT && gnuplot eval_vs_depth.gp`
// redraws a figure after editing it.
//
//   curves_lr<lr>_w<warmup>.png   training loss against step, one panel per placement,
//                                 one line per depth (first seed/width/steps/batch)
//   eval_vs_depth.png             final eval loss against depth, one panel per (lr, warmup),
//                                 one line per placement (mean over seeds and widths);
//                                 NaN/Inf runs drawn at the top edge; dashed: 0.7·ln K
//   init_grads.png                at initialisation: ‖∂L/∂fc2.weight‖ per block index (log),
//                                 the hidden-state norm per block, and the last block's
//                                 gradient against depth (log-log)

#include <string>
#include <vector>

#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

// Writes the .gp scripts into out; returns their file names.
std::vector<std::string> write_plot_scripts(const std::string& out, const SweepGrid& grid);

// The gnuplot program on PATH, or "" if there is none.
std::string find_gnuplot();

// Runs gnuplot on each script in out (from inside out). Returns "" on success, else what went wrong.
std::string render_plots(const std::string& out, const std::vector<std::string>& scripts, const std::string& gnuplot);

}  // namespace tapegrad::lab
