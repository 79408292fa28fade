#pragma once
// index.html: a results folder as one web page that opens from the file system (no server, no
// network): the summary table coloured by trained/failed, every plot embedded, the sweep's
// options, and links to each run's files.

#include <string>
#include <vector>

#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

// The page for the results folder `out` (its *.png plots are read and embedded as data: URLs), in `lang`.
std::string html_report(const std::string& out, const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                        const std::string& summary_text, Lang lang = Lang::en);

// Writes OUT/index.html (atomically) and returns its path.
std::string write_html_report(const std::string& out, const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                              const std::string& summary_text, Lang lang = Lang::en);

}  // namespace tapegrad::lab
