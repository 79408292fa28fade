#pragma once
// How the learner's code runs (exercise_sandbox.cpp: a child process per call) and what stopped it: an
// exception, a crash, a timeout, or a sanitizer's report (sanitizer_report.cpp); the compiler's messages
// read (compiler_warnings.cpp); the ids and hints of a run that stopped (run_errors.cpp).

#include <functional>
#include <string>

#include "grader_spec.hpp"

namespace tapegrad::exercise::detail {

// What a sanitizer (ASan, UBSan: the learner's program is built with them by scripts/exercise.sh)
// reported in the child, read by sanitizer_report.cpp. Empty id: no report.
struct SanitizerFinding {
  std::string id;        // memory_error, undefined_behaviour or xtensor_lazy_expression
  std::string tool;      // "AddressSanitizer" or "UndefinedBehaviorSanitizer"
  std::string kind;      // the sanitizer's words: "heap-buffer-overflow", "signed integer overflow: ..."
  std::string location;  // "file.cpp:12": the first frame in the learner's file (else the first outside /usr)
};
// `report`: the child's stderr; `source`: the learner's file ("" : any file outside /usr and the
// library's own); `line_of`: the text of a line of a file (for the keep_dims / auto pattern).
SanitizerFinding parse_sanitizer_report(const std::string& report, const std::string& source,
                                        const std::function<std::string(const std::string& file, int line)>& line_of);
// `file` (as a compiler or a sanitizer names it: absolute, or relative to where it ran) is `source`.
bool same_source_file(const std::string& file, const std::string& source);
// "file:line" or "file:line:column" → file and line (false when it is not one).
bool parse_location(const std::string& text, std::string& file, int& line);
// A compiler's or UBSan's line "file:line:column<marker>message" (marker ": warning: ", ": runtime error: ").
bool compiler_message(const std::string& text, const std::string& marker, std::string& file, int& line,
                      std::string& message);
// A line that holds a lazy xtensor expression the 0.24.3 trap bites: a keep_dims reduction inside a larger
// expression, or an `auto` holding an xtensor expression.
bool lazy_expression_line(const std::string& line);

// The learner's code in a child process (or in this one, options.isolate false).
struct RunResult {
  enum Status { ok, exception, crashed, timeout } status = ok;
  std::string message;  // the exception's what(), the signal, ...
  bool not_implemented = false;
  Outputs outputs;
  std::string printed;
  SanitizerFinding sanitizer;  // a sanitizer's report (then status is crashed)
};
// options: isolate, timeout_seconds, and source (the learner's file, for a sanitizer's report).
RunResult run_isolated(const std::function<Outputs()>& job, const Options& options);
// The diagnosis when the learner's code did not return outputs ("" when it did), and its hint
// (run_errors.cpp).
std::string run_error_id(const RunResult& r);
Text run_error_hint(const std::string& id);
// The ids of C++ pitfalls found by a sanitizer or the compiler: they outrank every other diagnosis (the
// values of code with undefined behaviour mean nothing).
bool is_cpp_pitfall(const std::string& id);

}  // namespace tapegrad::exercise::detail
