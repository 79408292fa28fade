// The grader's command-line driver: the program scripts/exercise.sh compiles from the learner's file
// runs main_with, which parses the options, runs the check and prints the report.

#include <cstdlib>
#include <iostream>

#include "tapegrad/exercise.hpp"

namespace tapegrad::exercise {

int main_with(int argc, char** argv, const std::function<Report(const Options&)>& check) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lang" && i + 1 < argc) options.lang = argv[++i];
    else if (a == "--case" && i + 1 < argc) options.only_case = std::atoi(argv[++i]);
    else if (a == "--in-process") options.isolate = false;
    else if (a == "--timeout" && i + 1 < argc) options.timeout_seconds = std::atof(argv[++i]);
    else {
      std::cerr << "usage: " << argv[0] << " [--lang en|zh] [--case N] [--in-process] [--timeout SECONDS]\n";
      return 2;
    }
  }
  try {
    const Report report = check(options);
    std::cout << report.to_string() << std::flush;
    return report.passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "the grader failed: " << e.what() << "\nresult: fail diagnosis=grader_error" << std::endl;
    return 1;
  }
}

}  // namespace tapegrad::exercise
