#pragma once
// The lab's figures, drawn by gnuplot from the assembled CSVs. The scripts are
// written next to the data (OUT/*.gp, the plotted values inline, see plot_figure.hpp),
// so `cd OUT && gnuplot eval_vs_depth.gp` redraws a figure after editing it.
//
//   curves_lr<lr>_w<warmup>.png   training loss against step, one panel per placement, one line per
//                                 depth: one run each (the first seed/width/steps/batch, named in the title)
//   eval_vs_depth.png             final eval loss against depth, one panel per (lr, warmup), one line
//                                 per placement (mean over seeds, widths, steps and batches, as the title says)
//   init_grads.png                at initialisation, the deepest stack: ||dL/dW|| of each sublayer's output
//                                 projection per block (a panel per sublayer), and the hidden-state norm
//   last_block_grad.png           at initialisation: the last block's ||dL/dW|| against depth (log-log),
//                                 with a 1/sqrt(L) reference line (Xiong et al. 2020, Thm. 1)
//   output_change.png             the output change of the first Adam step against depth, one panel per
//                                 (lr, warmup) (Liu et al. 2020's amplification)
// Loss plots carry the chance level ln K; values above the range and NaN/Inf are triangles at the top.

#include <string>
#include <vector>

#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

// Writes the .gp scripts into out from the CSVs there (runs.csv, curves.csv, init_grads.csv,
// output_change.csv; a missing one gives empty panels), their text in `lang`; returns their file names.
std::vector<std::string> write_plot_scripts(const std::string& out, const SweepGrid& grid, Lang lang = Lang::en);

// The gnuplot program on PATH, or "" if there is none.
std::string find_gnuplot();

// Runs gnuplot on each script in out (from inside out). Returns "" on success, else what went wrong.
std::string render_plots(const std::string& out, const std::vector<std::string>& scripts, const std::string& gnuplot);

}  // namespace tapegrad::lab
