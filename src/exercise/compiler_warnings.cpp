// The compiler's warnings for the learner's own file (scripts/exercise.sh compiles it a second time at
// -O1 -Wall -Wextra, where GCC sees which variables are read before they are set): a failing check
// with such a warning is uninitialized_variable at that line; the other warnings are listed.

#include <regex>
#include <set>
#include <sstream>

#include "grader.hpp"

namespace tapegrad::exercise {

namespace {

constexpr std::size_t kMaxWarnings = 5;

bool same_file(const std::string& file, const std::string& source) {
  if (source.empty()) return false;
  auto ends_with = [](const std::string& s, const std::string& t) {
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
  };
  return file == source || ends_with(source, "/" + file) || ends_with(file, "/" + source);
}

}  // namespace

void add_compiler_warnings(Report& report, const std::string& compiler_output, const std::string& source) {
  // "/path/file.cpp:15:10: warning: 'mean' may be used uninitialized [-Wmaybe-uninitialized]"
  static const std::regex warning(R"(^(\S+?):(\d+):\d+: warning: (.*)$)");
  std::istringstream in(compiler_output);
  std::string text, uninitialized_at;
  std::set<std::string> seen;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, warning) || !same_file(m[1], source)) continue;
    const std::string at = std::string(m[1]) + ":" + std::string(m[2]);
    const std::string message = m[3];
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
