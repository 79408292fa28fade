// The grader's command-line driver: the program scripts/exercise.sh compiles from the learner's file
// runs main_with, which parses the options, runs the check and prints the report: as text (the
// learner's), as JSON (--json), as Gradescope's results.json (--format gradescope), or as one machine
// line for the script itself (--format machine: what --gdb needs, never the human text).

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tapegrad/debug/report_language.hpp"
#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "first_failing_case=3 first_failing_function=layer_norm_forward diagnosis=unknown"
std::string machine_line(const Report& report) {
  return "first_failing_case=" + std::to_string(report.first_failing_case) +
         " first_failing_function=" + (report.first_failing_function.empty() ? "-" : report.first_failing_function) +
         " diagnosis=" + (report.passed ? "pass" : report.diagnosis) + "\n";
}

// A positive number from an environment variable's text, else the fallback.
double positive_number(const char* text, double fallback) {
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const double d = std::strtod(text, &end);
  return end && *end == '\0' && d > 0 ? d : fallback;
}

}  // namespace

Options options_from_environment() {
  Options o;
  o.lang = report_language();
  o.timeout_seconds = positive_number(std::getenv("TAPEGRAD_EXERCISE_TIMEOUT"), o.timeout_seconds);
  const char* fork = std::getenv("TAPEGRAD_EXERCISE_FORK");
  o.isolate = !(fork && std::string(fork) == "0");
  const char* source = std::getenv("TAPEGRAD_EXERCISE_SOURCE");
  o.source = source ? source : "";
  return o;
}

int main_with(int argc, char** argv, const std::function<Report(const Options&)>& check) {
  Options options = options_from_environment();
  std::string format = "text", warnings_file, source;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lang" && i + 1 < argc) options.lang = language_code(argv[++i]);
    else if (a == "--case" && i + 1 < argc) options.only_case = std::atoi(argv[++i]);
    else if (a == "--in-process") options.isolate = false;
    else if (a == "--timeout" && i + 1 < argc) options.timeout_seconds = std::atof(argv[++i]);
    else if (a == "--json") format = "json";
    else if (a == "--format" && i + 1 < argc) format = argv[++i];
    else if (a == "--warnings" && i + 1 < argc) warnings_file = argv[++i];
    else if (a == "--source" && i + 1 < argc) source = options.source = argv[++i];
    else if (a == "--hint" && i + 1 < argc) options.hint_level = std::atoi(argv[++i]);
    else {
      std::cerr << "usage: " << argv[0] << " [--lang en|zh] [--case N] [--in-process] [--timeout SECONDS]"
                << " [--json | --format text|json|gradescope|machine] [--warnings FILE --source FILE]"
                << " [--hint 1|2|3]\n";
      return 2;
    }
  }
  if (options.hint_level < 0 || options.hint_level > 3) {
    std::cerr << "--hint " << options.hint_level << ": expected 1 (what is wrong), 2 (and the formula) or 3 (and the line)\n";
    return 2;
  }
  if (format != "text" && format != "json" && format != "gradescope" && format != "machine") {
    std::cerr << "--format " << format << ": expected text, json, gradescope or machine\n";
    return 2;
  }
  try {
    Report report = check(options);
    if (!warnings_file.empty()) add_compiler_warnings(report, read_file(warnings_file), source);
    if (format == "json") std::cout << to_json(report);
    else if (format == "gradescope") std::cout << to_gradescope(report);
    else if (format == "machine") std::cout << machine_line(report);
    else std::cout << report.to_string();
    std::cout << std::flush;
    return report.passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "the grader failed: " << e.what() << "\nresult: fail diagnosis=grader_error" << std::endl;
    return 1;
  }
}

}  // namespace tapegrad::exercise
