#pragma once
// The end of a sweep or a merge: the CSVs assembled from runs/, the plots, the summary.

#include <string>
#include <vector>

#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab::cli {

// Assembles the CSVs of `runs` in out, draws the plots (if asked and gnuplot is there),
// prints the summary table and saves it as summary.txt.
// Then writes index.html (html_report.hpp). The summary, the page and the plots' text are in `lang`.
void report_results(const std::string& out, const SweepGrid& grid, const std::vector<RunConfig>& runs, bool plots,
                    Lang lang);

// tapegrad-depth report DIR (report_command.cpp): report_results again for DIR's sweep.json.
int run_report_command(int argc, char** argv);

}  // namespace tapegrad::lab::cli
