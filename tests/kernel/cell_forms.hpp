#pragma once
// C++'s lexical forms that the kernel's splitter must read (issue 34), each as a declaration, a
// statement and a last expression (without `;`) of a cell. '@' in a form stands for a number that
// makes its names unique (the fuzz test puts many forms into one file). Shared by the table test
// (cell_text_cases.cpp) and the fuzz test (splitter_fuzz.cpp).

#include <string>
#include <vector>

namespace cell_forms {

struct Form {
  const char* name;
  const char* declaration;  // one top-level declaration
  const char* statement;    // one statement, which may use the declaration's names
  const char* expression;   // a value, which may use them too
};

inline const std::vector<Form>& forms() {
  static const std::vector<Form> f = {
      {"raw string", R"c(auto rs@ = R"(a "quoted" 'x' )";)c", R"c(std::cout << R"(it's)" << rs@ << std::endl;)c",
       R"c(R"(it's)")c"},
      {"raw string with a delimiter", R"c(const char* rd@ = R"x(a )" b)x";)c", R"c(std::cout << R"--(})--" << rd@;)c",
       R"c(std::string(R"x()")x"))c"},
      {"prefixed raw strings", R"c(auto rp@ = u8R"(it's {)";)c", R"c(std::wcout << LR"(')" << L'\n';)c",
       R"c(sizeof(UR"(")"))c"},
      {"a raw string over lines", "std::string rl@ = R\"(<div style='a'>\n  {</div>)\";",
       "rl@ = R\"(<p class='x'>\n)\" + rl@;", "R\"(\n'\n)\""},
      {"character literals with escapes", R"c(char cq@ = '\'', cb@ = '\\', cd@ = '"';)c",
       R"c(std::cout << cq@ << cb@ << '{' << cd@;)c", R"c('\'')c"},
      {"digit separators", "long ds@ = 1'000'000 + 0xFF'FF;", "ds@ += 1'0;", "1'000 * 2"},
      {"prefixed strings and characters", R"c(const char16_t* ps@ = u"it's";)c",
       R"c(std::cout << u8"'{" << sizeof(U'}') << sizeof(L"x'");)c", R"c(L'\'')c"},
      {"comments holding quotes and braces", "int cm@ = 1 /* it's { */;", "cm@ += /* \"{\" */ 1;", "cm@ /* } ' */ + 1"},
      {"line continuations", "int lc@ = 1 + \\\n  2;", "lc@ = lc@ \\\n  * 2;", "3 + \\\n  4"},
      {"'>>' closing templates", "std::vector<std::vector<int>> tt@{{1}, {2, 3}};",
       "std::cout << std::vector<std::vector<int>>{{1}}.size() << tt@.size();",
       "std::vector<std::pair<int, int>>{{1, 2}}"},
      {"attributes", "[[nodiscard]] inline int af@() { return 1; }", "std::cout << af@();", "af@()"},
      {"'<::'", R"c(std::vector<::std::string> cc@{"a"};)c", R"c(cc@.push_back(std::string("<::"));)c",
       R"c(std::vector<::std::string>{"b"})c"},
      {"lambdas with captures and trailing return types",
       "auto lm@ = [n = 2](int x) mutable -> int { return x * n++; };",
       "[&](int x) -> void { std::cout << lm@(x); }(3);", "[&]() -> int { return lm@(1); }()"},
      {"designated initialisers", "struct Pd@ { int x, y; } pd@{.x = 1, .y = 2};", "pd@ = Pd@{.x = 3, .y = 4};",
       "Pd@{.x = 5}.x"},
  };
  return f;
}

// What may stand between the pieces of a cell: not pieces themselves.
inline const std::vector<std::string>& fillers() {
  static const std::vector<std::string> f = {
      "\n", "\n\n", "  ", "\n// it's { \"\n", "\n/* \" } ' R\"( */\n", "\n// a comment \\\n   that goes on\n",
      "\n#include <vector>\n", "\n#define TGX_TWICE(a) \\\n  ((a) + (a))\n", " /* ; */ "};
  return f;
}

// The form's text with '@' replaced by n.
inline std::string numbered(const std::string& text, int n) {
  std::string out;
  for (char c : text) out += c == '@' ? std::to_string(n) : std::string(1, c);
  return out;
}

}  // namespace cell_forms
