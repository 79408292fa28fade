// The compiler's warnings for the learner's own file (scripts/exercise.sh compiles it a second time at
// -O1 -Wall -Wextra, where GCC sees which variables are read before they are set): a failing check
// with such a warning is uninitialized_variable at that line; the other warnings are listed.

#include <set>
#include <sstream>

#include "grader.hpp"

namespace tapegrad::exercise {

namespace {

constexpr std::size_t kMaxWarnings = 5;

}  // namespace

void add_compiler_warnings(Report& report, const std::string& compiler_output, const std::string& source) {
  // "/path/file.cpp:15:10: warning: 'mean' may be used uninitialized [-Wmaybe-uninitialized]"
  std::istringstream in(compiler_output);
  std::string text, uninitialized_at;
  std::set<std::string> seen;
  while (std::getline(in, text)) {
    std::string file, message;
    int line_number = 0;
    if (!detail::compiler_message(text, ": warning: ", file, line_number, message) ||
        !detail::same_source_file(file, source))
      continue;
    const std::string at = file + ":" + std::to_string(line_number);
    const bool uninitialized = message.find("-Wmaybe-uninitialized") != std::string::npos ||
                               message.find("-Wuninitialized") != std::string::npos;
    if (uninitialized && uninitialized_at.empty() && !report.passed && !detail::is_cpp_pitfall(report.diagnosis)) {
      uninitialized_at = at;
      continue;
    }
    const std::string line = at + ": " + message;
    if (seen.insert(line).second && report.warnings.size() < kMaxWarnings) report.warnings.push_back(line);
  }
  if (!uninitialized_at.empty()) {
    report.diagnosis = "uninitialized_variable";
    report.location = uninitialized_at;
    report.hint = detail::run_error_hint(report.diagnosis).in(report.lang);
  }
}

}  // namespace tapegrad::exercise
