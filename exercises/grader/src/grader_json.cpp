// The report as data, for a course rather than a learner: --json (every check, the diagnosis, its hint
// and the learner's line) and --format gradescope (the results.json Gradescope's autograder reads: one
// test per function the learner wrote, 1 point each when all its checks pass).

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise {

std::string to_json(const Report& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const CheckRow& r : report.rows)
    checks.push_back({{"case_index", r.case_index}, {"case", r.case_name}, {"output", r.output},
                      {"function", r.function}, {"passed", r.passed}, {"detail", r.detail}});
  const nlohmann::json out = {{"exercise", report.exercise},
                              {"lang", report.lang},
                              {"passed", report.passed},
                              {"checks_passed", report.rows.size() - report.failed_count()},
                              {"checks_total", report.rows.size()},
                              {"checks", checks},
                              {"diagnosis", report.diagnosis},
                              {"hint", report.hint},
                              {"location", report.location},
                              {"first_failing_case", report.first_failing_case},
                              {"first_failing_function", report.first_failing_function},
                              {"warnings", report.warnings},
                              {"printed", report.printed},
                              {"result", report.result_line()}};
  return out.dump(2) + "\n";
}

std::string to_gradescope(const Report& report) {
  // The parts in the order the report first shows them.
  std::vector<std::string> parts;
  for (const CheckRow& r : report.rows)
    if (std::find(parts.begin(), parts.end(), r.function) == parts.end()) parts.push_back(r.function);
  nlohmann::json tests = nlohmann::json::array();
  double score = 0;
  for (const std::string& part : parts) {
    bool ok = true;
    std::string output;
    for (const CheckRow& r : report.rows) {
      if (r.function != part) continue;
      ok = ok && r.passed;
      if (!r.passed) output += r.case_name + "  " + r.output + "  " + r.detail + "\n";
    }
    if (!ok && !report.diagnosis.empty())
      output += "diagnosis: " + report.diagnosis + (report.location.empty() ? "" : " at " + report.location) + "\n" +
                report.hint + "\n";
    score += ok ? 1 : 0;
    tests.push_back({{"name", report.exercise + ": " + (part.empty() ? std::string("check") : part)},
                     {"score", ok ? 1.0 : 0.0},
                     {"max_score", 1.0},
                     {"status", ok ? "passed" : "failed"},
                     {"output", ok ? std::string("all checks passed") : output}});
  }
  const nlohmann::json out = {{"score", score}, {"output", report.result_line()}, {"tests", tests}};
  return out.dump(2) + "\n";
}

}  // namespace tapegrad::exercise
