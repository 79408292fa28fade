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

// "    #3 0x55d5c3 in layer_norm_forward(...) /path/file.cpp:14" (or ":14:7"); false when unsymbolized.
// Read by hand, not with std::regex: libstdc++'s matcher recurses once per character, and a frame
// inside xtensor is thousands of characters of template arguments (under ASan it overflowed the stack).
bool parse_frame(const std::string& text, Frame& frame) {
  std::size_t i = text.find_first_not_of(" \t");
  if (i == std::string::npos || text[i] != '#' || text.find(" 0x", i) == std::string::npos ||
      text.find(" in ", i) == std::string::npos)
    return false;
  const std::size_t end = text.find_last_not_of(" \t\r");
  const std::size_t start = text.find_last_of(" \t", end) + 1;  // the last word: file:line[:column]
  return parse_location(text.substr(start, end + 1 - start), frame.file, frame.line);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The learner's file: the one named, or (none named) any file that is not a system header, the
// grader's or the library's own source or header, or the generated main.cpp.
bool is_learners(const std::string& file, const std::string& source) {
  if (!source.empty()) return same_source_file(file, source);
  return file.rfind("/usr/", 0) != 0 && file.find("exercises/grader/") == std::string::npos &&
         file.find("include/tapegrad/") == std::string::npos && !ends_with(file, "/main.cpp");
}

std::string location_str(const Frame& f) { return f.file + ":" + std::to_string(f.line); }

}  // namespace

bool parse_location(const std::string& text, std::string& file, int& line) {
  // "file:line" or "file:line:column": the line is the first all-digit field after the file.
  auto number = [](const std::string& s) {
    return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  const std::size_t last = text.rfind(':');
  if (last == std::string::npos || last == 0 || !number(text.substr(last + 1))) return false;
  const std::size_t before = text.rfind(':', last - 1);
  const bool with_column = before != std::string::npos && number(text.substr(before + 1, last - before - 1));
  const std::size_t file_end = with_column ? before : last;
  file = text.substr(0, file_end);
  line = std::stoi(text.substr(file_end + 1));
  return !file.empty() && file.find_first_of(" \t") == std::string::npos;
}

bool compiler_message(const std::string& text, const std::string& marker, std::string& file, int& line,
                      std::string& message) {
  // "/path/file.cpp:15:10: warning: ..." (marker ": warning: ") or "file.cpp:8:20: runtime error: ...".
  const std::size_t at = text.find(marker);
  if (at == std::string::npos || !parse_location(text.substr(0, at), file, line)) return false;
  message = text.substr(at + marker.size());
  return true;
}

bool same_source_file(const std::string& file, const std::string& source) {
  if (file.empty() || source.empty()) return false;
  return file == source || ends_with(source, "/" + file) || ends_with(file, "/" + source);
}

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
  const std::string asan = "ERROR: AddressSanitizer: ";
  std::istringstream in(report);
  std::string text;
  Frame first_learner, first_outside;
  bool lazy_reducer = false;
  while (std::getline(in, text)) {
    Frame f;
    std::string message;
    if (found.id.empty() && text.find(asan) != std::string::npos) {
      const std::size_t kind = text.find(asan) + asan.size();
      found.id = "memory_error", found.tool = "AddressSanitizer";
      found.kind = text.substr(kind, text.find_first_of(" \t", kind) - kind);  // "heap-buffer-overflow"
      continue;
    }
    if (found.id.empty() && compiler_message(text, ": runtime error: ", f.file, f.line, message)) {
      found.tool = "UndefinedBehaviorSanitizer", found.kind = message;
      // UBSan's memory kinds (a null pointer, an index out of bounds) are the learner's memory errors.
      const bool memory = message.find("null pointer") != std::string::npos ||
                          message.find("out of bounds") != std::string::npos ||
                          message.find("misaligned address") != std::string::npos;
      found.id = memory ? "memory_error" : "undefined_behaviour";
      if (is_learners(f.file, source)) first_learner = f;
      continue;
    }
    if (found.id.empty()) continue;
    if (text.rfind("SUMMARY:", 0) == 0) break;  // ASan's report of where the memory came from follows
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
