#pragma once
// The end of a sweep or a merge: the CSVs assembled from runs/, the plots, the summary.

#include <string>
#include <vector>

#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab::cli {

// Assembles the CSVs of `runs` in out, draws the plots (if asked and gnuplot is there),
// prints the summary table and saves it as summary.txt.
void report_results(const std::string& out, const SweepGrid& grid, const std::vector<RunConfig>& runs, bool plots);

}  // namespace tapegrad::lab::cli
