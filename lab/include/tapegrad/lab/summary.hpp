#pragma once
// The sweep's verdict in one table: for each placement (rows) and each learning
// rate and warmup (columns), the deepest stack that trained.

#include <string>
#include <vector>

#include "tapegrad/lab/lab_text.hpp"
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

// The verdict at one depth of a cell is made from the median run, not from every run: deep Post-Norm
// training is chaotic, so one seed's final loss moves by 0.5 when a BLAS kernel changes the last bit of a dot
// product (issue 41: the same run trained on one OpenBLAS kernel and collapsed on another). The median of
// three or more seeds does not move so: the default sweep's summary is the same under every kernel
// (tests/lab/default_summary_test.sh). Over a cell's runs (its seeds, and widths, steps, batches):
//   trained  the median final eval loss is below trained_threshold(K) = 0.5·ln K
//   failed   it is above collapse_threshold(K) = 0.7·ln K, the per-run failure criterion (a NaN/Inf run counts
//            as +inf: the worst run, so a majority of NaN runs fails the depth)
//   between  in the gap between the two: neither trained nor collapsed, shown as such ("~32"), not rounded
// On a text task (--task poems|english) the two thresholds are the corpus's bigram and unigram baselines
// (text_run.hpp says why): loss_thresholds(grid.base) gives the pair for either kind of task.
enum class Verdict { trained, between, failed };
double trained_threshold(std::size_t classes);  // 0.5·ln K
struct LossThresholds {
  double trained = 0.0, collapsed = 0.0;  // nats: trained below the first, collapsed above the second
};
LossThresholds loss_thresholds(const RunConfig& base);
double median_eval_loss(std::vector<double> losses);  // non-finite values count as +inf; NaN if empty
Verdict verdict_of(double median_loss, std::size_t classes);
Verdict verdict_of(double median_loss, const LossThresholds& thresholds);

struct DepthCell {
  std::size_t depth = 0;
  std::size_t runs = 0, trained = 0;  // trained: runs that passed the per-run criterion (RunOutcome::failed)
  double median_eval_loss = 0;
  Verdict verdict = Verdict::failed;
};
// A row's cells at (lr, warmup), one per depth of the grid, in the grid's order.
std::vector<DepthCell> depth_cells(const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                                   const SummaryRow& row, double lr, long warmup);

// A cell of the table is the deepest depth whose verdict is trained; "-" if none is; a trailing "*" if some
// shallower depth is not (training is not monotone in depth there); "?" if runs are missing; then " ~D" for
// each deeper depth D whose verdict is between. Below the table: how the verdict is made. Nothing in it counts
// single runs, so that it holds on every machine; run_counts() does (printed and on the page). In `lang`
// (lab_text.hpp): the Chinese table is aligned by display width, the cells and numbers are the same.
std::string summary_table(const SweepGrid& grid, const std::vector<RunOutcome>& outcomes, Lang lang = Lang::en);
std::string run_counts(const std::vector<RunOutcome>& outcomes, Lang lang = Lang::en);

}  // namespace tapegrad::lab
