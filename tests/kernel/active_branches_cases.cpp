// Issue 45's text rules of the kernel: which branches of a cell's #if's are compiled (active_branches.cpp),
// and which variable a last declaration without ';' declares (cell_wrap.cpp's declared_variable).
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>

#include "active_branches.hpp"
#include "cell_wrap.hpp"

using namespace tapegrad_xcpp;

namespace {

// Macros "defined by earlier cells".
MacroLookup macros(std::map<std::string, std::string> defined) {
  return [defined](const std::string& name) -> std::optional<std::string> {
    const auto it = defined.find(name);
    if (it == defined.end()) return std::nullopt;
    return it->second;
  };
}

std::string last_variable(const std::string& cell) { return declared_variable(cell, split_top_level(cell).back()); }

}  // namespace

TEST_CASE("#if conditions are evaluated as the preprocessor does", "[kernel][branches]") {
  const MacroLookup m = macros({{"ONE", "1"}, {"TWO", " ONE + 1"}, {"EMPTY", ""}, {"FN", "("}});
  CHECK(preprocessor_value("0", m) == 0);
  CHECK(preprocessor_value("1 // comment", m) == 1);
  CHECK(preprocessor_value("defined(ONE) && !defined NOPE", m) == 1);
  CHECK(preprocessor_value("TWO == 2 || 0", m) == 1);
  CHECK(preprocessor_value("UNDEFINED_NAME", m) == 0);
  CHECK(preprocessor_value("(ONE + 2) > 2", m) == 1);
  CHECK_FALSE(preprocessor_value("FN(1)", m).has_value());  // not evaluated: the whole #if is kept
  CHECK_FALSE(preprocessor_value("EMPTY", m).has_value());
}

TEST_CASE("the lines of inactive branches are blanked, directives and line numbers kept", "[kernel][branches]") {
  const MacroLookup m = macros({{"DEF_DEF", "1"}});
  const std::string cell = "#ifdef DEF_DEF\nNested n\n#else\nNested m;\n#endif\n";
  const std::string out = without_inactive_branches(cell, m);
  CHECK(out == "#ifdef DEF_DEF\nNested n\n#else\n         \n#endif\n");
  CHECK(out.size() == cell.size());
  // #elif: only the taken branch stays; a #define of the cell counts from its line.
  CHECK(without_inactive_branches("#define X 2\n#if X == 1\n10\n#elif X == 2\n20\n#else\n30\n#endif", macros({})) ==
        "#define X 2\n#if X == 1\n  \n#elif X == 2\n20\n#else\n  \n#endif");
  // Nested groups inside an inactive branch stay blank; a condition it cannot read keeps everything.
  CHECK(without_inactive_branches("#if 0\n#if 1\na\n#endif\n#endif\nb", m) == "#if 0\n#if 1\n \n#endif\n#endif\nb");
  CHECK(without_inactive_branches("#if F(1)\na\n#else\nb\n#endif", macros({{"F", "("}})) == "#if F(1)\na\n#else\nb\n#endif");
}

TEST_CASE("a last declaration without a semicolon names the variable it declares", "[kernel][splitter]") {
  CHECK(last_variable("int a = 5") == "a");
  CHECK(last_variable("std::vector<bool> Bv(5,5)") == "Bv");
  CHECK(last_variable("unsigned u1 = 45, u2") == "u2");
  CHECK(last_variable("class TestDecl { public: int f(); } t") == "t");
  CHECK(last_variable("struct MyStruct { int i, j; } foo{33, 0}") == "foo");
  CHECK(last_variable("std::map<int, int> m") == "m");
  CHECK(last_variable("auto bla=[](double *x, int b){return x[0]*b;}") == "bla");
  CHECK(last_variable("int f(int)") == "");  // a function's declaration
  CHECK(last_variable("struct Q {}") == "");
  CHECK(last_variable("using V = int") == "");
  CHECK_FALSE(split_top_level("int a = 5").back().terminated);
  CHECK(split_top_level("int a = 5;").back().terminated);
}
