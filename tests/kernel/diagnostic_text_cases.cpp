// clang's diagnostics without the kernel's wrappers (kernel/src/diagnostic_text.cpp). Each case is a cell's line
// as the learner typed it and clang 22's diagnostic of it as the kernel showed it (the kernel, run by hand); the
// text clang printed is made from them here by inserting the kernel's wrappers (cell_wrap.cpp) where the kernel
// puts them, with the column and the caret lines moved right by what was inserted before them, as clang's are.
// What the learner must get back is their own line, the column and the ^ under the spot, as in cling.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "diagnostic_text.hpp"

using tapegrad_xcpp::kNamespaceEndMarker;
using tapegrad_xcpp::without_wrappers;

namespace {

using Inserts = std::vector<std::pair<std::size_t, std::string>>;  // (0-based index in the line, text), in order

std::string inserted(const std::string& line, const Inserts& inserts, bool spaces) {
  std::string out;
  std::size_t from = 0;
  for (const auto& [at, text] : inserts) {
    if (at > line.size()) break;
    out += line.substr(from, at - from) + (spaces ? std::string(text.size(), ' ') : text);
    from = at;
  }
  return out + line.substr(from);
}

// "input_line_5:L:C: error: MESSAGE", the quoted line "    L | LINE" and the lines under it, with INSERTS in.
std::string diagnostic(int line_no, std::size_t column, const std::string& message, const std::string& line,
                       const std::vector<std::string>& under, const Inserts& inserts = {}) {
  std::size_t moved = column;
  for (const auto& [at, text] : inserts)
    if (at < column) moved += text.size();  // (at is 0-based, column 1-based: the text goes before it)
  const std::string gutter = "    " + std::to_string(line_no) + " | ", blank = "      | ";
  std::string out = "input_line_5:" + std::to_string(line_no) + ":" + std::to_string(moved) + ": error: " + message +
                    "\n" + gutter + inserted(line, inserts, false) + "\n";
  for (const std::string& u : under) out += blank + inserted(u, inserts, true) + "\n";
  return out;
}

const std::string kOpen = "inline namespace __tgx_5 { ";  // a declaration's, cell_wrap.cpp's in_cell_namespace
const std::string kRunOnce = "void __tgx_7_1() { ";          // statements
const std::string kRunEnd = " ;} int __tgx_7_1_run = (__tgx_7_1(), 0);";
const std::string kValue = "void __tgx_3_1() { ((";         // a last expression, whose value is shown
const std::string kValueEnd = "), xcpp::detail::result_sink{}); } int __tgx_3_1_run = (__tgx_3_1(), 0);";

}  // namespace

TEST_CASE("a declaration's error: the namespace out, the column and the caret moved with it", "[kernel][diagnostics]") {
  const std::string line = "tg::Tensor q = tg::randn({1, 2, 3, 4}, gen);", msg = "no member named 'randn' in namespace 'tapegrad'";
  const std::vector<std::string> under{"               ^~~~~~~~~", "               rand"};
  const std::string note = "/usr/include/stdlib.h:454:12: note: 'rand' declared here\n";
  const Inserts wrap{{0, kOpen}, {line.size(), kNamespaceEndMarker}};
  CHECK(without_wrappers(diagnostic(1, 16, msg, line, under, wrap) + note) == diagnostic(1, 16, msg, line, under) + note);
}

TEST_CASE("the learner's own closing braces stay: only the kernel's marked one goes", "[kernel][diagnostics]") {
  const std::string line = "int f() { return \"x\"; }", msg = "cannot initialize return object of type 'int'";
  const std::vector<std::string> under{"                 ^~~"};
  const Inserts wrap{{0, kOpen}, {line.size(), kNamespaceEndMarker}};
  CHECK(without_wrappers(diagnostic(1, 18, msg, line, under, wrap)) == diagnostic(1, 18, msg, line, under));
}

TEST_CASE("three declarations on one line: the column moves by both wrappers before it", "[kernel][diagnostics]") {
  const std::string line = "int a = 1; int b = \"y\"; int c = 2;", msg = "cannot initialize a variable of type 'int'";
  const std::vector<std::string> under{"               ^   ~~~"};
  const Inserts wrap{{0, kOpen}, {10, kNamespaceEndMarker}, {11, kOpen}, {23, kNamespaceEndMarker},
                     {24, kOpen}, {line.size(), kNamespaceEndMarker}};
  CHECK(without_wrappers(diagnostic(1, 16, msg, line, under, wrap)) == diagnostic(1, 16, msg, line, under));
}

TEST_CASE("a last expression's error: the value's wrapper out on both sides", "[kernel][diagnostics]") {
  const std::string line = "logits.shap()", msg = "no member named 'shap' in 'tapegrad::Tensor'";
  const std::vector<std::string> under{"~~~~~~ ^"};
  const Inserts wrap{{0, kValue}, {line.size(), kValueEnd}};
  CHECK(without_wrappers(diagnostic(1, 8, msg, line, under, wrap)) == diagnostic(1, 8, msg, line, under));
}

TEST_CASE("statements over two lines: the run-once function out of each", "[kernel][diagnostics]") {
  const std::string first = "std::cout << 1;", second = "std::cout << qq;", msg = "use of undeclared identifier 'qq'";
  const std::string clang = diagnostic(1, 14, msg, first, {"             ^"}, {{0, kRunOnce}}) +
                            diagnostic(2, 14, msg, second, {"             ^~"}, {{second.size(), kRunEnd}});
  CHECK(without_wrappers(clang) ==
        diagnostic(1, 14, msg, first, {"             ^"}) + diagnostic(2, 14, msg, second, {"             ^~"}));
}

TEST_CASE("a caret inside a wrapper goes to where the wrapper was", "[kernel][diagnostics]") {
  // clang points at a declaration's end, just past the learner's text: in the kernel's " }/*__tgx*/".
  const std::string line = "int k = 1", msg = "expected ';' after top level declarator";
  const std::string clang = "input_line_5:1:38: error: " + msg + "\n    1 | " + kOpen + line + kNamespaceEndMarker +
                            "\n      | " + std::string(kOpen.size() + line.size(), ' ') + " ^\n";
  CHECK(without_wrappers(clang) == "input_line_5:1:10: error: " + msg + "\n    1 | " + line + "\n      | " +
                                       std::string(line.size(), ' ') + "\n");
}

TEST_CASE("names and texts without a quoted line lose their cell namespace", "[kernel][diagnostics]") {
  CHECK(without_wrappers("tapegrad_xcpp::__tgx_4::area(double)") == "tapegrad_xcpp::area(double)");
  CHECK(without_wrappers("redefinition of '__tgx_4::sq'\n") == "redefinition of 'sq'\n");
  CHECK(without_wrappers("") == "");
}

TEST_CASE("the quoted line is the cell's as typed where the kernel rewrote it in place", "[kernel][diagnostics]") {
  // A top-level lambda's capture default is compiled as `[ ]` (cell_wrap.cpp): the learner typed `[&]`.
  const std::string cell = "int k = 2;\nauto sq = [&](double v) { return v * vv; };\n";
  const std::vector<std::string> shown{"input_line_5:2:38: error: use of undeclared identifier 'vv'",
                                       "    2 | auto sq = [ ](double v) { return v * vv; };",
                                       "      |                                      ^~",
                                       "/usr/include/x.h:1:1: note: a header's line stays",
                                       "    1 | int x;"};
  const std::vector<std::string> want{shown[0], "    2 | auto sq = [&](double v) { return v * vv; };", shown[2],
                                      shown[3], shown[4]};
  CHECK(tapegrad_xcpp::with_cell_lines(shown, cell) == want);
  // A line whose length differs (not a rewrite in place) is left as clang quoted it.
  CHECK(tapegrad_xcpp::with_cell_lines(shown, "int k = 2;\nauto sq = [&](double v) { return v; };\n") == shown);
}
