#include "tapegrad/lab/summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/run_fields.hpp"

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

namespace {

struct DepthVerdict {
  std::size_t runs = 0, failed = 0;
};

// One cell: a row at (lr, warmup), over the grid's depths.
std::string cell(const SweepGrid& g, const std::vector<RunOutcome>& outcomes, const SummaryRow& row, double lr, long warmup) {
  std::vector<DepthVerdict> per_depth(g.depths.size());
  for (const auto& o : outcomes) {
    if (!row.has(o.config) || o.config.lr != lr || o.config.warmup != warmup) continue;
    const auto k = static_cast<std::size_t>(
        std::find(g.depths.begin(), g.depths.end(), o.config.depth) - g.depths.begin());
    if (k == g.depths.size()) continue;
    per_depth[k].runs++;
    per_depth[k].failed += o.failed ? 1 : 0;
  }
  const std::size_t expected = g.widths.size() * g.steps.size() * g.batches.size() * g.seeds.size();
  std::string deepest = "-";
  std::size_t deepest_depth = 0;
  bool missing = false;
  for (std::size_t k = 0; k < g.depths.size(); ++k) {
    missing |= per_depth[k].runs < expected;
    if (per_depth[k].runs > 0 && per_depth[k].failed == 0 && g.depths[k] >= deepest_depth) {
      deepest_depth = g.depths[k];
      deepest = std::to_string(g.depths[k]);
    }
  }
  bool shallower_failed = false;
  for (std::size_t k = 0; k < g.depths.size(); ++k)
    shallower_failed |= g.depths[k] < deepest_depth && per_depth[k].failed > 0;
  return deepest + (shallower_failed ? "*" : "") + (missing ? "?" : "");
}

}  // namespace

std::string summary_table(const SweepGrid& g, const std::vector<RunOutcome>& outcomes) {
  std::vector<std::string> headers{"placement"};
  for (double lr : g.lrs)
    for (long w : g.warmups) headers.push_back("lr=" + format_double(lr) + " warmup=" + std::to_string(w));
  std::vector<std::vector<std::string>> rows;
  for (const SummaryRow& r : summary_rows(g)) {
    std::vector<std::string> row{r.label};
    for (double lr : g.lrs)
      for (long w : g.warmups) row.push_back(cell(g, outcomes, r, lr, w));
    rows.push_back(row);
  }
  std::vector<std::size_t> width(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    width[i] = headers[i].size();
    for (const auto& r : rows) width[i] = std::max(width[i], r[i].size());
  }
  std::ostringstream s;
  std::vector<std::string> depths;
  for (auto d : g.depths) depths.push_back(std::to_string(d));
  std::string depth_list;
  for (const auto& d : depths) depth_list += (depth_list.empty() ? "" : ",") + d;
  s << "Deepest stack that trained (depths tried: " << depth_list << "):\n";
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i)
      s << (i ? "  " : "") << (i ? std::right : std::left) << std::setw(static_cast<int>(width[i])) << r[i];
    s << '\n';
  };
  line(headers);
  for (const auto& r : rows) line(r);
  std::size_t failed = 0, nonfinite = 0;
  for (const auto& o : outcomes) {
    failed += o.failed;
    nonfinite += o.fail_reason == "nonfinite";
  }
  const std::size_t K = g.base.classes;
  s << "A run failed if its loss went NaN/Inf or its final eval loss stayed above 0.7*ln(" << K
    << ") = " << std::setprecision(4) << collapse_threshold(K) << ". \"-\": no depth trained; \"*\": a shallower depth "
    << "failed; \"?\": runs missing.\n"
    << failed << " of " << outcomes.size() << " runs failed (" << nonfinite << " with NaN/Inf, " << failed - nonfinite
    << " collapsed).\n";
  return s.str();
}

}  // namespace tapegrad::lab
