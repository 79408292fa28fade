// The kernel's text scanners, form by form (issue 34): the tokens of each lexical form, and the
// splitter's pieces of a cell that holds it in a declaration, a statement, a last expression and all
// three mixed. Plain string work, no clang (kernel/src/cpp_tokens.cpp, cell_text.cpp, cell_wrap.cpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "cell_forms.hpp"
#include "piece_text.hpp"
#include "cell_text.hpp"
#include "cell_wrap.hpp"
#include "cpp_tokens.hpp"

using namespace tapegrad_xcpp;

namespace {

// "kind:text" of each token, e.g. {"identifier:auto", "string:R\"(x)\""}.
std::vector<std::string> token_texts(const std::string& source) {
  static const char* const kinds[] = {"identifier", "number", "string", "character", "punctuation", "comment",
                                      "preprocessor"};
  std::vector<std::string> out;
  for (const CppToken& t : cpp_tokens(source))
    out.push_back(std::string(kinds[t.kind]) + ":" + source.substr(t.begin, t.end - t.begin));
  return out;
}

// The splitter's pieces of a cell: kind and text.
std::vector<std::pair<Chunk::Kind, std::string>> pieces_of(const std::string& cell) {
  std::vector<std::pair<Chunk::Kind, std::string>> out;
  for (const Chunk& c : split_top_level(cell)) out.emplace_back(c.kind, cell.substr(c.begin, c.end - c.begin));
  return out;
}

}  // namespace

TEST_CASE("the tokenizer reads each lexical form as one token", "[kernel][tokens]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {R"t(R"(it's)")t", {R"t(string:R"(it's)")t"}},
      {R"t(R"x(a )" b)x" ;)t", {R"t(string:R"x(a )" b)x")t", "punctuation:;"}},
      {R"t(u8R"(it's {)")t", {R"t(string:u8R"(it's {)")t"}},
      {R"t(LR"(')")t", {R"t(string:LR"(')")t"}},
      {"R\"(<div style='a'>\n</div>)\" x", {"string:R\"(<div style='a'>\n</div>)\"", "identifier:x"}},
      {R"('\'' '\\' '"')", {R"(character:'\'')", R"(character:'\\')", R"(character:'"')"}},
      {"1'000'000 0xFF'FF 1e-3 0x1p+4 .5f", {"number:1'000'000", "number:0xFF'FF", "number:1e-3", "number:0x1p+4",
                                              "number:.5f"}},
      {R"(u8"it's" u"x" U'}' L"x'")", {R"(string:u8"it's")", R"(string:u"x")", R"(character:U'}')",
                                      R"(string:L"x'")"}},
      {R"("ab"s 'x'_c)", {R"(string:"ab"s)", "character:'x'_c"}},
      {"a // it's {\nb", {"identifier:a", "comment:// it's {", "identifier:b"}},
      {"a /* \"{\" ' */ b", {"identifier:a", "comment:/* \"{\" ' */", "identifier:b"}},
      {"// one \\\n two\nc", {"comment:// one \\\n two", "identifier:c"}},
      {"#define F(a) \\\n  'a'\nx", {"preprocessor:#define F(a) \\\n  'a'", "identifier:x"}},
      {"int a = 1 \\\n + 2;", {"identifier:int", "identifier:a", "punctuation:=", "number:1", "punctuation:+",
                               "number:2", "punctuation:;"}},
      {"std::vector<std::vector<int>>", {"identifier:std", "punctuation:::", "identifier:vector", "punctuation:<",
                                         "identifier:std", "punctuation:::", "identifier:vector", "punctuation:<",
                                         "identifier:int", "punctuation:>", "punctuation:>"}},
      {"[[nodiscard]]", {"punctuation:[", "punctuation:[", "identifier:nodiscard", "punctuation:]",
                         "punctuation:]"}},
      {"v<::s>", {"identifier:v", "punctuation:<", "punctuation:::", "identifier:s", "punctuation:>"}},
      {"R 'x'", {"identifier:R", "character:'x'"}},
  };
  for (const auto& [source, want] : table) {
    INFO("source: " << source);
    CHECK(token_texts(source) == want);
  }
}

TEST_CASE("code_only blanks what is not code and keeps lengths, lines and quotes", "[kernel][tokens]") {
  const std::vector<std::pair<std::string, std::string>> table = {
      {R"t(f(R"(it's)");)t", R"t(f(R"      ");)t"},
      {"x = R\"(a\n'b')\";", "x = R\"  \n    \";"},
      {R"(c = '\'';)", R"(c = '  ';)"},
      {"n = 1'000; // it's", "n = 1'000;        "},
      {"#include <x> // '\ny", "                 \ny"},
      {"s = \"open", "s =      "},
      {"u8\"it's\"s;", "u8\"    \"s;"},
  };
  for (const auto& [source, want] : table) {
    INFO("source: " << source);
    CHECK(code_only(source) == want);
  }
  CHECK(completeness("auto s = R\"(it's\n") == "incomplete");
  CHECK(completeness("auto s = R\"(it's)\";") == "complete");
  CHECK(completeness("char c = '\\'';") == "complete");
  CHECK(completeness("/* { ") == "incomplete");
}

TEST_CASE("each form is one piece of the right kind, alone and in a mixed cell", "[kernel][splitter]") {
  for (const cell_forms::Form& form : cell_forms::forms()) {
    const std::string declaration = cell_forms::numbered(form.declaration, 1);
    const std::string statement = cell_forms::numbered(form.statement, 1);
    const std::string expression = cell_forms::numbered(form.expression, 1);
    INFO("form: " << form.name);
    CHECK(pieces_of(declaration) == std::vector<std::pair<Chunk::Kind, std::string>>{{Chunk::declaration, declaration}});
    CHECK(pieces_of(statement) == std::vector<std::pair<Chunk::Kind, std::string>>{{Chunk::statement, statement}});
    CHECK(pieces_of(expression) == std::vector<std::pair<Chunk::Kind, std::string>>{{Chunk::expression, expression}});
    const std::string mixed = declaration + "\n// it's {\n" + statement + "\n" + expression;
    CHECK(pieces_of(mixed) == std::vector<std::pair<Chunk::Kind, std::string>>{
                                  {Chunk::declaration, declaration}, {Chunk::statement, statement},
                                  {Chunk::expression, expression}});
  }
}

TEST_CASE("the cells of issue 34 split at their statements", "[kernel][splitter]") {
  // `std::cout << R"(it's)" << std::endl;` was one unterminated expression ("unexpected ';' before ')'").
  CHECK(pieces_of("std::cout << R\"(it's)\" << std::endl;") ==
        std::vector<std::pair<Chunk::Kind, std::string>>{{Chunk::statement, "std::cout << R\"(it's)\" << std::endl;"}});
  const std::string html = "rect.m_content = R\"(<div style='width: 10px'>\n  x\n</div>)\";\nxcpp::display(rect, \"r\", true);";
  CHECK(pieces_of(html).size() == 2);
}

TEST_CASE("a piece whose brackets do not close is not wrapped (clang 22 crashed on it)", "[kernel][splitter]") {
  for (const std::string cell : {"std::cout << (1;", "int x = (1;", "auto t = [](int a) { return a; ;\nf();"}) {
    INFO("cell: " << cell);
    const std::vector<std::string> pieces = wrap_cell(cell, 1);
    CHECK(pieces == std::vector<std::string>{cell});
  }
  CHECK(wrap_cell("f(1);", 1).front().find("__tgx_1_1") != std::string::npos);
}

TEST_CASE("a cell's declarations share one inline namespace, as cling's DefinitionShadower", "[kernel][splitter]") {
  // a forward declaration and its definition in one cell: one entity (not two, in two namespaces)
  const std::string cell = "int twice(int);\nint four = twice(2);\nint twice(int x) { return 2 * x; }";
  const std::string wrapped = wrap_cell(cell, 7).front();
  INFO("wrapped: " << wrapped);
  std::size_t opened = 0;
  for (std::size_t at = wrapped.find("inline namespace __tgx_7 {"); at != std::string::npos;
       at = wrapped.find("inline namespace __tgx_7 {", at + 1))
    ++opened;
  CHECK(opened == 3);
  CHECK(wrapped.find("__tgx_7_") == std::string::npos);
}

TEST_CASE("a top-level lambda loses its capture-default, a lambda in a body keeps it", "[kernel][splitter]") {
  CHECK(wrap_cell("auto f = [&] { return v; };", 1).front().find("auto f = [ ] { return v; };") != std::string::npos);
  CHECK(wrap_cell("auto g = [=, n = 2] { return n; };", 1).front().find("auto g = [   n = 2]") != std::string::npos);
  CHECK(wrap_cell("auto h = [&x] { return x; };", 1).front().find("[&x]") != std::string::npos);
  CHECK(wrap_cell("int k() { int v = 1; auto f = [&] { return v; }; return f(); }", 1).front().find("[&]") !=
        std::string::npos);
}

TEST_CASE("out-of-line members, operators and extern variables are classified as declarations", "[kernel][splitter]") {
  for (const std::string cell : {"typeA::typeA() = default;", "::typeA& ::typeA::operator()(int k) { return *this; }",
                                 "const typeA& typeA::operator[](int k) const { return *this; }",
                                 "S& S::operator=(const S&) = delete;"}) {
    INFO("cell: " << cell);
    const std::vector<Chunk> chunks = split_top_level(cell);
    REQUIRE(chunks.size() == 1);
    CHECK(chunks[0].kind == Chunk::declaration);
    CHECK_FALSE(chunks[0].redefinable);  // it belongs to the class of an earlier cell
  }
  // an operator[]'s parameters are no lambda's: a `const` definition of it is one piece with the cell's others
  CHECK(wrap_cell("int a = 1;\nconst S& S::operator[](int k) const { return *this; }", 1).size() == 1);
  CHECK(split_top_level("extern MyClass* my;")[0].redefinable);  // completed by its definition in a later cell
  CHECK_FALSE(split_top_level("extern \"C\" double likeSin(double);")[0].redefinable);
  CHECK_FALSE(split_top_level("extern template class std::vector<int>;")[0].redefinable);
}
