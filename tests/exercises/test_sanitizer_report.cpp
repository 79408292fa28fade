// The sanitizer's report, read (exercises/grader/src/sanitizer_report.cpp), on reports captured from the learner
// files of tests/exercises/pitfalls/ (paths rewritten to /src/...): the id, and the learner's line, not
// the first frame (an xtensor header) nor the grader's frames below. And the compiler's warnings
// (compiler_warnings.cpp) on GCC's real output for an uninitialised accumulator. (Taking every frame as
// the learner's fails 4 checks here: the lazy cases get memory_error at /usr/include/xtensor/xoperation.hpp.)
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "../../exercises/grader/src/grader.hpp"

namespace {

std::string captured(const std::string& name) {
  std::ifstream in(std::string(TAPEGRAD_SOURCE_DIR) + "/tests/exercises/captured/" + name);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The learner's lines, as the real files have them (the captured reports name /src/... paths).
std::string line_of(const std::string& file, int line) {
  const std::string prefix = "/src/";
  std::ifstream in(std::string(TAPEGRAD_SOURCE_DIR) + "/" + file.substr(file.rfind(prefix, 0) == 0 ? prefix.size() : 0));
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {
  }
  return text;
}

const std::string pitfalls = "/src/tests/exercises/pitfalls/";

}  // namespace

using tapegrad::exercise::detail::lazy_expression_line;
using tapegrad::exercise::detail::parse_sanitizer_report;

TEST_CASE("sanitizer report: an off-by-one read is a memory_error at the learner's line", "[exercise][sanitizer]") {
  const auto f = parse_sanitizer_report(captured("off_by_one.txt"), pitfalls + "02_layer_norm_forward_off_by_one.cpp",
                                        line_of);
  CHECK(f.id == "memory_error");
  CHECK(f.kind == "heap-buffer-overflow");
  CHECK(f.location == pitfalls + "02_layer_norm_forward_off_by_one.cpp:14");
  // Without the learner's file named: the first frame outside /usr and the library is the same line.
  CHECK(parse_sanitizer_report(captured("off_by_one.txt"), "", line_of).location == f.location);
}

TEST_CASE("sanitizer report: a lazy keep_dims reduction is xtensor_lazy_expression at the learner's line",
          "[exercise][sanitizer]") {
  const auto f = parse_sanitizer_report(captured("lazy_keep_dims.txt"),
                                        pitfalls + "02_layer_norm_forward_lazy_keep_dims.cpp", line_of);
  CHECK(f.id == "xtensor_lazy_expression");
  CHECK(f.location == pitfalls + "02_layer_norm_forward_lazy_keep_dims.cpp:11");
  const auto a = parse_sanitizer_report(captured("lazy_auto.txt"), pitfalls + "02_layer_norm_forward_lazy_auto.cpp",
                                        line_of);
  CHECK(a.id == "xtensor_lazy_expression");
  CHECK(a.location == pitfalls + "02_layer_norm_forward_lazy_auto.cpp:12");
}

TEST_CASE("sanitizer report: UBSan's runtime error is undefined_behaviour at its line", "[exercise][sanitizer]") {
  const auto f = parse_sanitizer_report(captured("int_overflow.txt"),
                                        pitfalls + "02_layer_norm_forward_int_overflow.cpp", line_of);
  CHECK(f.id == "undefined_behaviour");
  CHECK(f.kind.rfind("signed integer overflow", 0) == 0);
  CHECK(f.location == pitfalls + "02_layer_norm_forward_int_overflow.cpp:12");
}

TEST_CASE("sanitizer report: a frame of xtensor's template arguments, 200000 characters long, is read",
          "[exercise][sanitizer]") {
  // std::regex on such a line recursed once per character and overflowed the stack (the ASan build, CI).
  const std::string frame = "    #1 0x55d5c3 in xt::xfunction<" + std::string(200000, 'T') + ">::operator() " +
                            pitfalls + "02_layer_norm_forward_off_by_one.cpp:14:7\n";
  const auto f = parse_sanitizer_report("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6\n" + frame,
                                        pitfalls + "02_layer_norm_forward_off_by_one.cpp", line_of);
  CHECK(f.id == "memory_error");
  CHECK(f.kind == "heap-buffer-overflow");
  CHECK(f.location == pitfalls + "02_layer_norm_forward_off_by_one.cpp:14");
}

TEST_CASE("locations: file:line and file:line:column, nothing else", "[exercise][sanitizer]") {
  using tapegrad::exercise::detail::parse_location;
  std::string file;
  int line = 0;
  CHECK((parse_location("/src/mine.cpp:12", file, line) && file == "/src/mine.cpp" && line == 12));
  CHECK((parse_location("mine.cpp:8:20", file, line) && file == "mine.cpp" && line == 8));
  CHECK_FALSE(parse_location("mine.cpp", file, line));
  CHECK_FALSE(parse_location("mine.cpp:", file, line));
  CHECK_FALSE(parse_location(":12", file, line));
  CHECK_FALSE(parse_location("(BuildId: 1f2e3d)", file, line));
  CHECK_FALSE(parse_location("in main.cpp:3", file, line));
}

TEST_CASE("sanitizer report: none in plain stderr", "[exercise][sanitizer]") {
  CHECK(parse_sanitizer_report("", "", line_of).id.empty());
  CHECK(parse_sanitizer_report("debug: x = 3\nruntime is fine\n", "", line_of).id.empty());
}

TEST_CASE("lazy expression lines: keep_dims inside an expression, auto of an expression", "[exercise][sanitizer]") {
  CHECK(lazy_expression_line("  tapegrad::Array c = x - xt::mean(x, {last}, xt::keep_dims);"));
  CHECK(lazy_expression_line("  auto mu = xt::mean(x, {1});"));
  CHECK(lazy_expression_line("  const auto& d = x - y * xt::sum(x);"));
  CHECK_FALSE(lazy_expression_line("  tapegrad::Array mu = xt::mean(x, {last}, xt::keep_dims);"));
  CHECK_FALSE(lazy_expression_line("  return x - xt::amax(x, {axis}, xt::keep_dims | xt::evaluation_strategy::immediate);"));
  CHECK_FALSE(lazy_expression_line("  auto n = x.size();"));
  CHECK_FALSE(lazy_expression_line("  double m = 0;  // not xt::mean(x, {1}, xt::keep_dims) here"));
  CHECK_FALSE(lazy_expression_line("  return {\"x - xt::mean(x, {1}, xt::keep_dims) reads past\", \"\"};"));
}

TEST_CASE("compiler warnings: a failing check with maybe-uninitialized is uninitialized_variable at its line",
          "[exercise][sanitizer]") {
  const std::string source = pitfalls + "02_layer_norm_forward_uninitialized.cpp";
  tapegrad::exercise::Report failed;
  failed.diagnosis = "unknown";
  tapegrad::exercise::add_compiler_warnings(failed, captured("gcc_uninitialized.txt"), source);
  CHECK(failed.diagnosis == "uninitialized_variable");
  CHECK(failed.location == source + ":15");
  CHECK(failed.hint.find("double sum = 0") != std::string::npos);
  // A passing check keeps its verdict: the warning is listed.
  tapegrad::exercise::Report passed;
  passed.passed = true;
  tapegrad::exercise::add_compiler_warnings(passed, captured("gcc_uninitialized.txt"), source);
  CHECK(passed.diagnosis.empty());
  REQUIRE(passed.warnings.size() == 1);
  CHECK(passed.warnings[0].find("02_layer_norm_forward_uninitialized.cpp:15: ") != std::string::npos);
  // Another file's warnings are not the learner's.
  tapegrad::exercise::Report other;
  tapegrad::exercise::add_compiler_warnings(other, captured("gcc_uninitialized.txt"), "/elsewhere/mine.cpp");
  CHECK(other.warnings.empty());
  CHECK(other.diagnosis.empty());
}

// "Say it before they hit it": the library, the lab and the reference solutions never write the trap
// themselves (the pattern the grader names: a keep_dims reduction inside an expression, an `auto`
// holding an xtensor expression), so a learner reading them learns the safe form.
TEST_CASE("no lazy xtensor expression in the library, the lab or the solutions", "[exercise][sanitizer]") {
  namespace fs = std::filesystem;
  const fs::path root(TAPEGRAD_SOURCE_DIR);
  std::vector<std::string> hits;
  std::size_t files = 0;
  for (const char* folder : {"src", "include", "lab", "exercises/solutions"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        if (lazy_expression_line(line)) hits.push_back(fs::relative(entry.path(), root).string() + ":" +
                                                       std::to_string(n) + ": " + line);
    }
  }
  CHECK(files > 50);
  for (const std::string& h : hits) UNSCOPED_INFO(h);
  CHECK(hits.empty());
}
