// index.html of a results folder: see html_report.hpp.
#include "tapegrad/lab/html_report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
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
// The class names stay English (the page's tests and styles read them); the words are in `lang`.
std::string cell(const DepthCell& c, Lang lang) {
  const char* colour = c.verdict == Verdict::trained ? "#c8e6c9" : c.verdict == Verdict::between ? "#ffe0b2" : "#ffcdd2";
  const Phrase& word = c.verdict == Verdict::trained ? text::trained : c.verdict == Verdict::between ? text::between : text::failed;
  return std::string("<td class=\"") + word.en + "\" style=\"background:" + colour + "\">" + word.in(lang) + " " +
         std::to_string(c.trained) + "/" + std::to_string(c.runs) + text::median_open.in(lang) +
         number(c.median_eval_loss) + text::close.in(lang) + "</td>";
}

}  // namespace

std::string html_report(const std::string& out, const SweepGrid& grid, const std::vector<RunOutcome>& outcomes,
                        const std::string& summary_text, Lang lang) {
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html" << (lang == Lang::zh ? " lang=\"zh-CN\"" : "")
       << "><head><meta charset=\"utf-8\"><title>tapegrad-depth: " << escape_html(out)
       << "</title>\n<style>body{font-family:" << text::page_font.in(lang) << ";margin:1.5em;max-width:1200px}"
          "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:2px 8px;"
          "font-family:monospace;font-size:90%}img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
          "pre{background:#f6f6f6;padding:0.5em;white-space:pre-wrap}"
       << text::page_mono_font.in(lang) << "</style></head><body>\n";
  // The folder as given (results/depth), not its last part alone ("depth" read as the sweep's subject).
  page << "<h1>" << text::sweep_in.in(lang) << escape_html(fs::path(out).lexically_normal().string()) << "</h1>\n";
  page << "<p>" << text::finished_before.in(lang) << outcomes.size() << text::finished_runs.in(lang);
  const char* const files[] = {"runs.csv", "curves.csv", "init_grads.csv", "output_change.csv", "summary.txt",
                               "sweep.json"};
  for (std::size_t i = 0; i < std::size(files); ++i)
    page << (i ? text::list_sep.in(lang) : "") << link(files[i], files[i]);
  page << text::sentence_end.in(lang) << "</p>\n";

  // The verdict per summary row (a placement and a value of each listed setting, as summary.txt's), lr and
  // warmup (rows) and depth (columns), over the other axes (widths, steps, batches, seeds) together.
  const auto listed = listed_settings(grid);
  page << "<h2>" << text::summary.in(lang) << "</h2>\n<table class=\"summary\"><tr><th>" << text::placement.in(lang)
       << "</th>";
  for (const auto& setting : listed) page << "<th>" << escape_html(setting.first->key) << "</th>";
  page << "<th>" << text::lr.in(lang) << "</th><th>" << text::warmup.in(lang) << "</th>";
  for (std::size_t d : grid.depths) page << "<th>L=" << d << "</th>";
  page << "</tr>\n";
  for (const SummaryRow& row : summary_rows(grid))
    for (double lr : grid.lrs)
      for (long w : grid.warmups) {
        page << "<tr><td>" << escape_html(nn::to_string(row.placement)) << "</td>";
        for (const auto& setting : row.settings) page << "<td>" << escape_html(Field::text(setting.second)) << "</td>";
        page << "<td>" << number(lr) << "</td><td>" << w << "</td>";
        for (const DepthCell& c : depth_cells(grid, outcomes, row, lr, w))
          page << (c.runs == 0 ? std::string("<td class=\"missing\">?</td>") : cell(c, lang));
        page << "</tr>\n";
      }
  page << "</table>\n<pre>" << escape_html(summary_text) << "</pre>\n";

  page << "<h2>" << text::plots.in(lang) << "</h2>\n";
  std::vector<fs::path> plots;
  for (const auto& f : fs::directory_iterator(out))
    if (f.path().extension() == ".png") plots.push_back(f.path());
  std::sort(plots.begin(), plots.end());
  if (plots.empty()) page << "<p>" << text::no_plots.in(lang) << "</p>\n";
  for (const fs::path& p : plots) {
    page << "<h3>" << escape_html(p.filename().string()) << "</h3>\n<img alt=\"" << escape_html(p.filename().string())
         << "\" src=\"data:image/png;base64," << png_base64(PngFile{p.string()}) << "\">\n";
  }

  page << "<h2>" << text::options.in(lang) << "</h2>\n<pre>" << escape_html(to_json(grid)) << "</pre>\n";

  page << "<h2>" << text::runs.in(lang) << "</h2>\n<table class=\"runs\"><tr>";
  for (const Phrase* header : {&text::run, &text::train_loss, &text::eval_loss, &text::result, &text::files})
    page << "<th>" << header->in(lang) << "</th>";
  page << "</tr>\n";
  for (const RunOutcome& o : outcomes) {
    const std::string id = run_id(o.config);
    const fs::path dir = fs::path(run_dir(out, o.config));
    page << "<tr><td>" << escape_html(id) << "</td><td>" << number(o.train_loss) << "</td><td>" << number(o.eval_loss)
         << "</td>"
         << (o.failed ? "<td style=\"background:#ffcdd2\">" + text::failed_at_step.in(lang) +
                            std::to_string(o.fail_step) + text::step_colon.in(lang) + escape_html(o.fail_reason) +
                            "</td>"
                      : "<td style=\"background:#c8e6c9\">" + text::trained.in(lang) + "</td>")
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
                              const std::string& summary_text, Lang lang) {
  const std::string path = (fs::path(out) / "index.html").string();
  write_file_atomically(path, html_report(out, grid, outcomes, summary_text, lang));
  return path;
}

}  // namespace tapegrad::lab
