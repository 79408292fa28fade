#pragma once
// The sweep's verdict in one table: for each placement (rows) and each learning
// rate and warmup (columns), the deepest stack that trained.

#include <string>
#include <vector>

#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/sweep.hpp"

namespace tapegrad::lab {

// A row of the summary (summary.txt's and index.html's): a placement, and a value of each setting the sweep
// lists several of ("post xavier rms").
struct SummaryRow {
  nn::Placement placement;
  std::vector<std::pair<const Field*, FieldValue>> settings;
  std::string label;
  bool has(const RunConfig& config) const;  // the run is of this row
};
// The rows: placements in the grid's order, each listed setting's values inside (listed_settings' order).
std::vector<SummaryRow> summary_rows(const SweepGrid& grid);

// A cell is the deepest depth at which every seed (and every width, steps and
// batch setting) trained; "-" if none did; a trailing "*" if some shallower
// depth failed (training is not monotone in depth there); "?" if runs are missing.
// Below the table: the failure criterion and the count of failed runs.
std::string summary_table(const SweepGrid& grid, const std::vector<RunOutcome>& outcomes);

}  // namespace tapegrad::lab
