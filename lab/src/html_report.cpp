// index.html of a results folder: see html_report.hpp.
#include "tapegrad/lab/html_report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "tapegrad/debug/display.hpp"
#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/summary.hpp"

namespace tapegrad::lab {

namespace fs = std::filesystem;

namespace {

using tapegrad::escape_html;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A link relative to the page, so that the folder can move (and open from the file system).
std::string link(const std::string& relative, const std::string& text) {
  return "<a href=\"" + escape_html(relative) + "\">" + escape_html(text) + "</a>";
}

// A depth's cell: its verdict from the median run (summary.hpp), green trained, amber between, red failed, with
// the runs that passed the per-run criterion and the median final eval loss.
std::string cell(const DepthCell& c) {
  const char* colour = c.verdict == Verdict::trained ? "#c8e6c9" : c.verdict == Verdict::between ? "#ffe0b2" : "#ffcdd2";
  const char* word = c.verdict == Verdict::trained ? "trained" : c.verdict == Verdict::between ? "between" : "failed";
  return std::string("<td class=\"") + word + "\" style=\"background:" + colour + "\">" + word + " " +
         std::to_string(c.trained) + "/" + std::to_string(c.runs) + " (median " + number(c.median_eval_loss) + ")</td>";
}

}  // namespace

std::string html_report(const std::string& out, const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                        const std::string& summary_text) {
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tapegrad-depth: " << escape_html(out)
       << "</title>\n<style>body{font-family:sans-serif;margin:1.5em;max-width:1200px}"
          "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:2px 8px;"
          "font-family:monospace;font-size:90%}img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
          "pre{background:#f6f6f6;padding:0.5em;white-space:pre-wrap}</style></head><body>\n";
  // The folder as given (results/depth), not its last part alone ("depth" read as the sweep's subject).
  page << "<h1>Depth sweep in " << escape_html(fs::path(out).lexically_normal().string()) << "</h1>\n";
  page << "<p>" << outcomes.size() << " finished runs. Files: " << link("runs.csv", "runs.csv") << ", "
       << link("curves.csv", "curves.csv") << ", " << link("init_grads.csv", "init_grads.csv") << ", "
       << link("output_change.csv", "output_change.csv") << ", " << link("summary.txt", "summary.txt") << ", "
       << link("sweep.json", "sweep.json") << ".</p>\n";

  // The verdict per summary row (a placement and a value of each listed setting, as summary.txt's), lr and
  // warmup (rows) and depth (columns), over the other axes (widths, steps, batches, seeds) together.
  const auto listed = listed_settings(grid);
  page << "<h2>Summary</h2>\n<table class=\"summary\"><tr><th>placement</th>";
  for (const auto& setting : listed) page << "<th>" << escape_html(setting.first->key) << "</th>";
  page << "<th>lr</th><th>warmup</th>";
  for (std::size_t d : grid.depths) page << "<th>L=" << d << "</th>";
  page << "</tr>\n";
  for (const SummaryRow& row : summary_rows(grid))
    for (double lr : grid.lrs)
      for (long w : grid.warmups) {
        page << "<tr><td>" << escape_html(nn::to_string(row.placement)) << "</td>";
        for (const auto& setting : row.settings) page << "<td>" << escape_html(Field::text(setting.second)) << "</td>";
        page << "<td>" << number(lr) << "</td><td>" << w << "</td>";
        for (const DepthCell& c : depth_cells(grid, outcomes, row, lr, w))
          page << (c.runs == 0 ? std::string("<td class=\"missing\">?</td>") : cell(c));
        page << "</tr>\n";
      }
  page << "</table>\n<pre>" << escape_html(summary_text) << "</pre>\n";

  page << "<h2>Plots</h2>\n";
  std::vector<fs::path> plots;
  for (const auto& f : fs::directory_iterator(out))
    if (f.path().extension() == ".png") plots.push_back(f.path());
  std::sort(plots.begin(), plots.end());
  if (plots.empty()) page << "<p>No plots (gnuplot was not there, or --no-plots).</p>\n";
  for (const fs::path& p : plots) {
    page << "<h3>" << escape_html(p.filename().string()) << "</h3>\n<img alt=\"" << escape_html(p.filename().string())
         << "\" src=\"data:image/png;base64," << png_base64(PngFile{p.string()}) << "\">\n";
  }

  page << "<h2>Options</h2>\n<pre>" << escape_html(to_json(grid)) << "</pre>\n";

  page << "<h2>Runs</h2>\n<table class=\"runs\"><tr><th>run</th><th>train loss</th><th>eval loss</th>"
          "<th>result</th><th>files</th></tr>\n";
  for (const RunOutcome& o : outcomes) {
    const std::string id = run_id(o.config);
    const fs::path dir = fs::path(run_dir(out, o.config));
    page << "<tr><td>" << escape_html(id) << "</td><td>" << number(o.train_loss) << "</td><td>" << number(o.eval_loss)
         << "</td>"
         << (o.failed ? "<td style=\"background:#ffcdd2\">failed at step " + std::to_string(o.fail_step) + ": " +
                            escape_html(o.fail_reason) + "</td>"
                      : std::string("<td style=\"background:#c8e6c9\">trained</td>"))
         << "<td>";
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(dir, ec)) files.push_back(f.path().filename().string());
    std::sort(files.begin(), files.end());
    const std::string relative = fs::relative(dir, out).string();
    for (std::size_t i = 0; i < files.size(); ++i)
      page << (i ? " " : "") << link(relative + "/" + files[i], files[i]);
    page << "</td></tr>\n";
  }
  page << "</table>\n</body></html>\n";
  return page.str();
}

std::string write_html_report(const std::string& out, const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                              const std::string& summary_text) {
  const std::string path = (fs::path(out) / "index.html").string();
  write_file_atomically(path, html_report(out, grid, outcomes, summary_text));
  return path;
}

}  // namespace tapegrad::lab
