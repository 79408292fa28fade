#include "tapegrad/lab/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iomanip>
#include <sstream>

#include "tapegrad/debug/text_width.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/lab_text.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/text_run.hpp"

namespace tapegrad::lab {

bool SummaryRow::has(const RunConfig& c) const {
  if (c.placement != placement) return false;
  for (const auto& [field, value] : settings)
    if (field->get(c) != value) return false;
  return true;
}

std::vector<SummaryRow> summary_rows(const SweepGrid& g) {
  std::vector<SummaryRow> rows;
  for (auto p : g.placements) rows.push_back({p, {}, nn::to_string(p)});
  for (const auto& [field, values] : listed_settings(g)) {
    std::vector<SummaryRow> wider;
    for (const SummaryRow& r : rows)
      for (const FieldValue& v : values) {
        SummaryRow w = r;
        w.settings.emplace_back(field, v);
        w.label += " " + Field::text(v);
        wider.push_back(w);
      }
    rows = wider;
  }
  return rows;
}

double trained_threshold(std::size_t classes) { return 0.5 * std::log(static_cast<double>(classes)); }

double median_eval_loss(std::vector<double> losses) {
  if (losses.empty()) return std::numeric_limits<double>::quiet_NaN();
  for (double& l : losses)
    if (!std::isfinite(l)) l = std::numeric_limits<double>::infinity();  // a NaN run is the worst run, not a gap
  std::sort(losses.begin(), losses.end());
  const std::size_t n = losses.size();
  return n % 2 ? losses[n / 2] : 0.5 * (losses[n / 2 - 1] + losses[n / 2]);
}

LossThresholds loss_thresholds(const RunConfig& base) {
  if (base.task != Task::synthetic) {
    const TextBaselines& b = text_baselines(base.task);
    return {b.trained_line(), b.unigram};
  }
  return {trained_threshold(base.classes), collapse_threshold(base.classes)};
}

Verdict verdict_of(double median_loss, std::size_t classes) {
  return verdict_of(median_loss, LossThresholds{trained_threshold(classes), collapse_threshold(classes)});
}

Verdict verdict_of(double median_loss, const LossThresholds& thresholds) {
  if (!(median_loss <= thresholds.collapsed)) return Verdict::failed;  // above, +inf (or no runs: NaN)
  return median_loss < thresholds.trained ? Verdict::trained : Verdict::between;
}

std::vector<DepthCell> depth_cells(const SweepGrid& g, const std::vector<RunOutcome>& outcomes, const SummaryRow& row,
                                   double lr, long warmup) {
  std::vector<std::vector<double>> losses(g.depths.size());
  std::vector<DepthCell> cells(g.depths.size());
  for (const auto& o : outcomes) {
    if (!row.has(o.config) || o.config.lr != lr || o.config.warmup != warmup) continue;
    const auto k = static_cast<std::size_t>(
        std::find(g.depths.begin(), g.depths.end(), o.config.depth) - g.depths.begin());
    if (k == g.depths.size()) continue;
    // A run that stopped on NaN/Inf counts as the worst run whatever eval loss it logged before.
    losses[k].push_back(o.fail_reason == "nonfinite" ? std::numeric_limits<double>::infinity() : o.eval_loss);
    cells[k].trained += o.failed ? 0 : 1;
  }
  const LossThresholds thresholds = loss_thresholds(g.base);
  for (std::size_t k = 0; k < g.depths.size(); ++k) {
    cells[k].depth = g.depths[k];
    cells[k].runs = losses[k].size();
    cells[k].median_eval_loss = median_eval_loss(losses[k]);
    cells[k].verdict = cells[k].runs ? verdict_of(cells[k].median_eval_loss, thresholds) : Verdict::failed;
  }
  return cells;
}

namespace {

// One cell: a row at (lr, warmup), over the grid's depths.
std::string cell(const SweepGrid& g, const std::vector<RunOutcome>& outcomes, const SummaryRow& row, double lr, long warmup) {
  const std::vector<DepthCell> cells = depth_cells(g, outcomes, row, lr, warmup);
  const std::size_t expected = g.widths.size() * g.steps.size() * g.batches.size() * g.seeds.size();
  std::size_t deepest = 0;
  bool missing = false;
  for (const DepthCell& c : cells) {
    missing |= c.runs < expected;
    if (c.runs > 0 && c.verdict == Verdict::trained) deepest = std::max(deepest, c.depth);
  }
  bool shallower_failed = false;
  std::string between;  // the deeper depths whose median run sits between trained and collapsed
  for (const DepthCell& c : cells) {
    shallower_failed |= c.depth < deepest && c.verdict != Verdict::trained;
    if (c.depth > deepest && c.runs > 0 && c.verdict == Verdict::between) between += " ~" + std::to_string(c.depth);
  }
  return (deepest ? std::to_string(deepest) : "-") + (shallower_failed ? "*" : "") + (missing ? "?" : "") + between;
}

}  // namespace

std::string summary_table(const SweepGrid& g, const std::vector<RunOutcome>& outcomes, Lang lang) {
  std::vector<std::string> headers{text::placement.in(lang)};
  for (double lr : g.lrs)
    for (long w : g.warmups)
      headers.push_back(text::lr_is.in(lang) + format_double(lr) + text::warmup_is.in(lang) + std::to_string(w));
  std::vector<std::vector<std::string>> rows;
  for (const SummaryRow& r : summary_rows(g)) {
    std::vector<std::string> row{r.label};
    for (double lr : g.lrs)
      for (long w : g.warmups) row.push_back(cell(g, outcomes, r, lr, w));
    rows.push_back(row);
  }
  // Columns as wide as their widest text on screen (a Chinese character takes two columns, three bytes).
  std::vector<std::size_t> width(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    width[i] = display_width(headers[i]);
    for (const auto& r : rows) width[i] = std::max(width[i], display_width(r[i]));
  }
  std::ostringstream s;
  std::string depth_list;
  for (auto d : g.depths) depth_list += (depth_list.empty() ? "" : ",") + std::to_string(d);
  const std::size_t per_cell = g.widths.size() * g.steps.size() * g.batches.size() * g.seeds.size();
  s << text::deepest.in(lang) << depth_list << text::before_runs.in(lang) << per_cell
    << (per_cell == 1 ? text::run_one : text::run_many).in(lang) << text::per_depth.in(lang) << g.seeds.size()
    << (g.seeds.size() == 1 ? text::seed_one : text::seed_many).in(lang)
    << (per_cell > g.seeds.size() ? text::times_other_axes.in(lang) : "") << text::deepest_end.in(lang);
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) s << (i ? "  " + pad_left(r[i], width[i]) : pad_right(r[i], width[i]));
    s << '\n';
  };
  line(headers);
  for (const auto& r : rows) line(r);
  const std::size_t K = g.base.classes;
  if (g.base.task != Task::synthetic) {
    const TextBaselines& b = text_baselines(g.base.task);
    const double ln2 = std::log(2.0);
    s << std::fixed << std::setprecision(3) << text::text_verdict_trained.in(lang) << b.trained_line() / ln2
      << text::text_verdict_nats.in(lang) << b.trained_line() << text::text_verdict_midpoint.in(lang) << b.unigram / ln2
      << text::text_verdict_to_bigram.in(lang) << b.bigram / ln2 << text::text_verdict_collapsed.in(lang)
      << b.unigram / ln2 << text::text_verdict_nats.in(lang) << b.unigram << text::text_verdict_end.in(lang)
      << std::defaultfloat;
  } else {
    s << std::setprecision(4) << text::verdict_trained.in(lang) << K << ") = " << trained_threshold(K)
      << text::verdict_collapsed.in(lang) << K << ") = " << collapse_threshold(K);
  }
  s << text::verdict_legend.in(lang);
  if (g.seeds.size() < 3) s << text::few_seeds.in(lang);
  return s.str();
}

std::string run_counts(const std::vector<RunOutcome>& outcomes, Lang lang) {
  std::size_t failed = 0, nonfinite = 0;
  for (const auto& o : outcomes) {
    failed += o.failed;
    nonfinite += o.fail_reason == "nonfinite";
  }
  std::ostringstream s;
  s << failed << text::failed_of.in(lang) << outcomes.size() << text::runs_failed.in(lang) << nonfinite
    << text::with_nonfinite.in(lang) << failed - nonfinite << text::collapsed_count.in(lang);
  return s.str();
}

}  // namespace tapegrad::lab
