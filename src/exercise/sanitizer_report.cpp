// A sanitizer's report, read: which kind of error (ASan's "heap-buffer-overflow", UBSan's "runtime
// error: ..."), and where in the learner's file, so that the report names one line and not a page of
// xtensor frames. A report that runs through xtensor's lazy reducer (xreducer_stepper), or names a
// line holding a lazy expression, is xtensor 0.24.3's keep_dims trap, which has its own hint.

#include <regex>
#include <sstream>

#include "grader.hpp"

namespace tapegrad::exercise::detail {

namespace {

struct Frame {
  std::string file;
  int line = 0;
};

// "    #3 0x55d5c3 in layer_norm_forward(...) /path/file.cpp:14" (or ":14:7"); "" when unsymbolized.
bool parse_frame(const std::string& text, Frame& frame) {
  static const std::regex re(R"(^\s*#\d+ 0x[0-9a-f]+ in .* (\S+?):(\d+)(:\d+)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return false;
  frame.file = m[1];
  frame.line = std::stoi(m[2]);
  return true;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The learner's file: the one named, or (none named) any file that is not a system header, the
// library's own source or header, or the generated main.cpp.
bool is_learners(const std::string& file, const std::string& source) {
  if (!source.empty()) return file == source || ends_with(source, "/" + file) || ends_with(file, "/" + source);
  return file.rfind("/usr/", 0) != 0 && file.find("src/exercise/") == std::string::npos &&
         file.find("include/tapegrad/") == std::string::npos && !ends_with(file, "/main.cpp");
}

std::string location_str(const Frame& f) { return f.file + ":" + std::to_string(f.line); }

}  // namespace

bool lazy_expression_line(const std::string& line) {
  // The code of the line: string literals (a hint that quotes the trap) and the comment dropped.
  static const std::regex literal(R"("([^"\\]|\\.)*")");
  std::string code = std::regex_replace(line, literal, "\"\"");
  code = code.substr(0, code.find("//"));
  static const std::regex auto_expr(R"(^\s*(const\s+)?auto\s*&{0,2}\s*\w+\s*=.*\bxt::)");
  if (std::regex_search(code, auto_expr)) return true;
  // A keep_dims reduction that is not the whole right-hand side: `x - xt::mean(x, {1}, xt::keep_dims)`.
  static const std::regex whole(R"(=\s*xt::\w+\s*\([^;]*keep_dims\s*\)\s*;)");
  return code.find("keep_dims") != std::string::npos && code.find("evaluation_strategy::immediate") == std::string::npos &&
         !std::regex_search(code, whole);
}

SanitizerFinding parse_sanitizer_report(const std::string& report, const std::string& source,
                                        const std::function<std::string(const std::string&, int)>& line_of) {
  SanitizerFinding found;
  static const std::regex asan(R"(ERROR: AddressSanitizer: ([\w-]+))");
  static const std::regex ubsan(R"(^(\S+?):(\d+):\d+: runtime error: (.*)$)");
  std::istringstream in(report);
  std::string text;
  Frame first_learner, first_outside;
  bool lazy_reducer = false;
  while (std::getline(in, text)) {
    std::smatch m;
    if (found.id.empty() && std::regex_search(text, m, asan)) {
      found.id = "memory_error", found.kind = m[1];
      continue;
    }
    if (found.id.empty() && std::regex_match(text, m, ubsan)) {
      found.id = "undefined_behaviour", found.kind = m[3];
      Frame f{m[1], std::stoi(m[2])};
      if (is_learners(f.file, source)) first_learner = f;
      continue;
    }
    if (found.id.empty()) continue;
    if (text.rfind("SUMMARY:", 0) == 0) break;  // ASan's report of where the memory came from follows
    Frame f;
    // Through xtensor's lazy reducer on the way to the learner's line (the frames below it are the grader's).
    if (first_learner.line == 0 && text.find("xreducer_stepper") != std::string::npos) lazy_reducer = true;
    if (!parse_frame(text, f)) {
      if (text.find("freed by thread") != std::string::npos || text.find("allocated by thread") != std::string::npos)
        break;  // the stacks of the allocation and free: not where the error is
      continue;
    }
    if (first_learner.line == 0 && is_learners(f.file, source)) first_learner = f;
    if (first_outside.line == 0 && f.file.rfind("/usr/", 0) != 0) first_outside = f;
  }
  if (found.id.empty()) return found;
  const Frame& at = first_learner.line ? first_learner : first_outside;
  if (at.line) found.location = location_str(at);
  if (lazy_reducer || (first_learner.line && line_of && lazy_expression_line(line_of(at.file, at.line))))
    found.id = "xtensor_lazy_expression";
  return found;
}

}  // namespace tapegrad::exercise::detail
