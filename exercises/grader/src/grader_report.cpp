// The grader's report: its text (what scripts/exercise.sh prints, last line `result: ...`), its HTML
// table (a notebook's display), and several reports as one (the blocks exercise).

#include <algorithm>
#include <iostream>
#include <sstream>

#include "grader.hpp"
#include "grader_texts.hpp"
#include "tapegrad/debug/display.hpp"  // escape_html
#include "tapegrad/debug/text_width.hpp"

namespace tapegrad::exercise {

// ---- the report ----
std::size_t Report::failed_count() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const CheckRow& r) { return !r.passed; }));
}

std::string Report::result_line() const {
  return passed ? "result: pass" : "result: fail diagnosis=" + (diagnosis.empty() ? std::string("unknown") : diagnosis);
}

namespace {
// A row's detail; an exception's message of several lines continues under its first line, so that
// the table's columns stay straight.
std::string indented(const std::string& detail, std::size_t column) {
  std::string out;
  for (char ch : detail) {
    out += ch;
    if (ch == '\n') out += std::string(column, ' ');
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

}  // namespace

std::string Report::to_string() const {
  using namespace detail;
  std::ostringstream out;
  const std::size_t failed = failed_count();
  out << text::fill(text::checks_passed_en.in(lang), {{"exercise", exercise},
                                                       {"passed", std::to_string(rows.size() - failed)},
                                                       {"total", std::to_string(rows.size())}})
      << "\n";
  std::size_t case_width = 0, out_width = 0;
  for (const CheckRow& r : rows)
    case_width = std::max(case_width, display_width(r.case_name)),
    out_width = std::max(out_width, display_width(r.output));
  case_width = std::min<std::size_t>(case_width, 56);
  out_width = std::min<std::size_t>(out_width, 16);
  for (const CheckRow& r : rows) {
    const std::string head = "  " + (r.passed ? text::ok : text::fail).in(lang) + pad_right(r.case_name, case_width) +
                             "  " + pad_right(r.output, out_width) + "  ";
    out << head << indented(r.detail, display_width(head)) << "\n";
  }
  if (!printed.empty()) {
    out << text::printed.in(lang) << "\n";
    std::istringstream lines(printed);
    std::string line;
    while (std::getline(lines, line)) out << "  | " << line << "\n";
  }
  if (!passed) {
    if (first_failing_case >= 0)
      out << text::fill(text::first_failing.in(lang),
                        {{"case", std::to_string(first_failing_case)}, {"function", first_failing_function}})
          << "\n";
    out << text::diagnosis.in(lang) << diagnosis << "\n";
    if (!location.empty()) out << text::location.in(lang) << location << "\n";
    if (!hint.empty()) {  // wrapped at spaces, ~100 columns (a Chinese hint has few spaces: it stays long)
      std::istringstream words(hint);
      std::string word, line;
      while (words >> word) {
        if (!line.empty() && display_width(line) + 1 + display_width(word) > 98) out << "  " << line << "\n", line.clear();
        line += (line.empty() ? "" : " ") + word;
      }
      if (!line.empty()) out << "  " << line << "\n";
    }
  }
  if (!warnings.empty()) {
    out << text::warnings.in(lang) << "\n";
    for (const std::string& w : warnings) out << "  " << w << "\n";
  }
  out << result_line() << "\n";
  return out.str();
}

namespace {
// Escaped, with an exception's line breaks kept.
std::string html_lines(const std::string& s) {
  std::string out;
  for (char ch : escape_html(s)) out += ch == '\n' ? std::string("<br>") : std::string(1, ch);
  return out;
}
}  // namespace

std::string Report::to_html() const {
  using namespace detail;
  std::ostringstream out;
  const std::size_t failed = failed_count();
  out << "<div class=\"tapegrad-exercise\"><p><b>" << text::html_exercise.in(lang) << escape_html(exercise) << "</b>: "
      << rows.size() - failed << text::of.in(lang) << rows.size() << text::html_passed.in(lang) << "</p>";
  out << "<table style=\"border-collapse:collapse;font-family:monospace\">";
  out << "<tr><th></th><th style=\"text-align:left\">" << text::html_case.in(lang) << "</th><th style=\"text-align:left\">"
      << text::html_output.in(lang) << "</th><th style=\"text-align:left\">" << text::html_detail.in(lang) << "</th></tr>";
  for (const CheckRow& r : rows)
    out << "<tr style=\"background:" << (r.passed ? "#e6f4ea" : "#fce8e6") << "\"><td style=\"padding:0 6px;color:"
        << (r.passed ? "#137333\">&#10003;" : "#c5221f\">&#10007;") << "</td><td style=\"padding:0 6px\">"
        << escape_html(r.case_name) << "</td><td style=\"padding:0 6px\">" << escape_html(r.output)
        << "</td><td style=\"padding:0 6px\">" << html_lines(r.detail) << "</td></tr>";
  out << "</table>";
  if (!printed.empty()) out << "<p>" << text::printed.in(lang) << "</p><pre>" << escape_html(printed) << "</pre>";
  if (!passed)
    out << "<p style=\"background:#fef7e0;padding:4px\"><b>" << text::diagnosis.in(lang) << "<code>"
        << escape_html(diagnosis) << "</code></b>"
        << (location.empty() ? std::string() : text::html_location.in(lang) + escape_html(location) + text::html_close.in(lang))
        << "<br>" << escape_html(hint) << "</p>";
  for (const std::string& w : warnings) out << "<p><code>" << escape_html(w) << "</code></p>";
  out << "<p><code>" << escape_html(result_line()) << "</code></p></div>";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Report& report) { return out << report.to_string(); }

Report combine(const std::string& exercise, const std::vector<Report>& reports) {
  // Case indices stay each report's own: `--case N` runs case N of every one (gdb stops in the first
  // of the learner's functions it reaches).
  Report all;
  all.exercise = exercise;
  all.passed = !reports.empty();
  for (const Report& r : reports) {
    all.lang = r.lang;
    for (CheckRow row : r.rows) {
      row.case_name = r.exercise + " " + row.case_name;
      all.rows.push_back(row);
    }
    if (!r.passed && all.passed) {
      all.passed = false;
      all.diagnosis = r.diagnosis;
      all.hint = r.hint;
      all.partly_cases = r.partly_cases;
      all.first_failing_case = r.first_failing_case;
      all.first_failing_function = r.first_failing_function;
      all.location = r.location;
    }
    if (all.printed.empty()) all.printed = r.printed;
  }
  return all;
}

}  // namespace tapegrad::exercise
