#include "cell_wrap.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "cell_text.hpp"
#include "diagnostic_text.hpp"
#include "cpp_tokens.hpp"

namespace tapegrad_xcpp {

namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A token of a cell's code (comments and preprocessor lines left out), from cpp_tokens.hpp.
struct Token {
  std::size_t at = 0, end = 0;
  std::string text;
  bool word = false;  // an identifier or keyword
};

// The tokens of source[begin, end): a range that no literal or comment straddles (one the splitter found).
std::vector<Token> tokens_of(const std::string& source, std::size_t begin, std::size_t end) {
  std::vector<Token> out;
  for (const CppToken& t : cpp_tokens(source.substr(begin, end - begin))) {
    if (t.kind == CppToken::comment || t.kind == CppToken::preprocessor) continue;
    out.push_back({begin + t.begin, begin + t.end, source.substr(begin + t.begin, t.end - t.begin),
                   t.kind == CppToken::identifier});
  }
  // An attribute before a declaration or statement ([[nodiscard]] int f(), [[maybe_unused]] auto x):
  // classified by what follows it.
  std::size_t skip = 0;
  while (skip + 1 < out.size() && out[skip].text == "[" && out[skip + 1].text == "[") {
    int depth = 0;
    std::size_t k = skip;
    for (; k < out.size(); ++k) {
      if (out[k].text == "[") ++depth;
      else if (out[k].text == "]" && --depth == 0) break;
    }
    if (k >= out.size()) break;
    skip = k + 1;
  }
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(skip));
  return out;
}

const std::set<std::string>& statement_keywords() {
  static const std::set<std::string> k = {"for", "while", "do", "if", "switch", "try", "return", "break",
                                          "continue", "goto", "throw", "delete", "case", "default", "co_return"};
  return k;
}

const std::set<std::string>& declaration_keywords() {
  static const std::set<std::string> k = {
      "namespace", "template", "extern", "using", "typedef", "struct", "class", "union", "enum",
      "static_assert", "inline", "static", "constexpr", "const", "volatile", "thread_local", "auto",
      "register", "unsigned", "signed", "short", "long", "int", "char", "bool", "float", "double", "void",
      "wchar_t", "char16_t", "char32_t", "char8_t", "decltype", "explicit", "virtual", "friend", "typename",
      "alignas", "mutable", "constinit", "consteval", "operator"};
  return k;
}

bool is_identifier(const Token& t) { return t.word; }

// Skips a balanced <...> starting at tokens[i] == "<"; returns the index after it, or npos.
std::size_t skip_angles(const std::vector<Token>& t, std::size_t i) {
  int depth = 0;
  for (; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (s == "<") ++depth;
    else if (s == ">") { if (--depth == 0) return i + 1; }
    else if (s == ";" || s == "{" || s == "}") return std::string::npos;
    else if (s == "(") {  // skip a parenthesised argument
      int p = 0;
      for (; i < t.size(); ++i) {
        if (t[i].text == "(") ++p;
        else if (t[i].text == ")" && --p == 0) break;
      }
    }
  }
  return std::string::npos;
}

// Does `name [<...>] [:: name [<...>]]... [cv * & &&]... identifier` start the chunk (a declaration)?
bool starts_like_declaration(const std::vector<Token>& t) {
  std::size_t i = 0;
  if (i < t.size() && t[i].text == "::") ++i;
  bool any_name = false;
  while (i < t.size() && is_identifier(t[i])) {
    any_name = true;
    ++i;
    if (i < t.size() && t[i].text == "<") {
      i = skip_angles(t, i);
      if (i == std::string::npos) return false;
    }
    if (i < t.size() && t[i].text == "::") { ++i; continue; }
    break;
  }
  if (!any_name) return false;
  while (i < t.size() && (t[i].text == "*" || t[i].text == "&" || t[i].text == "const" || t[i].text == "volatile"))
    ++i;
  return i < t.size() && is_identifier(t[i]) && statement_keywords().count(t[i].text) == 0;
}

// Whether a depth-0 ")" is followed (maybe after const/noexcept/override/-> type/: inits) by "{":
// a function definition such as `S::S() : x(1) {}` or `double sq(double v) {`.
bool has_function_body(const std::vector<Token>& t) {
  int depth = 0;
  bool lambda_parameters = false;  // the depth-0 "(" follows "]": a lambda's, not a function's
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (s == "(" || s == "[") {
      // (not `operator[](int k)`: an operator's parameters)
      if (depth == 0 && s == "(")
        lambda_parameters = i > 0 && t[i - 1].text == "]" && !(i > 2 && t[i - 3].text == "operator");
      ++depth;
    } else if (s == ")" || s == "]") {
      --depth;
      if (depth == 0 && s == ")" && !lambda_parameters && i + 1 < t.size()) {
        const std::string& n = t[i + 1].text;
        if (n == "{" || n == "const" || n == "noexcept" || n == "override" || n == "final" || n == ":" ||
            (n == "-" && i + 2 < t.size() && t[i + 2].text == ">"))
          return true;
        // `S::S() = default;`, `S& operator=(const S&) = delete;`: defined too, without a body
        if (n == "=" && i + 2 < t.size() && (t[i + 2].text == "default" || t[i + 2].text == "delete")) return true;
      }
    } else if (s == "=" && depth == 0) {
      return false;
    } else if (s == "{" && depth == 0) {
      return false;
    }
  }
  return false;
}

Chunk::Kind classify(const std::vector<Token>& t) {
  if (t.empty()) return Chunk::statement;
  const std::string& first = t[0].text;
  if (first == "{" || first == "[" || first == "(" || first == "*" || first == "+" || first == "-" ||
      first == "!" || first == "~" || first == "&")
    return Chunk::statement;
  if (statement_keywords().count(first)) return Chunk::statement;
  if (declaration_keywords().count(first)) return Chunk::declaration;
  if (starts_like_declaration(t) || has_function_body(t)) return Chunk::declaration;
  return Chunk::statement;
}

// A declaration that goes into the cell's inline namespace (see cell_wrap.hpp), or one that must stay
// where it is: namespaces, extern "C", using-directives and using-declarations,
// static_assert, explicit (partial) specialisations and instantiations, out-of-line
// definitions of members (`void S::f() {}`) and anything else with a qualified name.
bool redefinable(const std::vector<Token>& t) {
  std::size_t i = 0;
  if (t.empty()) return false;
  const std::string& first = t[0].text;
  if (first == "namespace" || first == "static_assert" || first == "friend") return false;
  if (first == "extern") {
    // `extern T* my;` goes into the cell's namespace like its later definition, which then completes it
    // (ROOT-5248); `extern "C"` and `extern template` stay where they are.
    if (t.size() < 2 || t[1].text == "template" || t[1].text[0] == '"') return false;
    i = 1;
  }
  if (first == "using") return t.size() > 2 && is_identifier(t[1]) && t[1].text != "namespace" && t[2].text == "=";
  if (first == "template") {
    if (t.size() < 2 || t[1].text != "<") return false;         // explicit instantiation
    if (t.size() > 2 && t[2].text == ">") return false;         // explicit specialisation
    i = skip_angles(t, 1);
    if (i == std::string::npos) return false;
  }
  // The declared name: the last identifier before the first depth-0 ( = { ; [ or single ':'.
  bool tag = false;
  std::size_t name = std::string::npos;
  for (; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (s == "struct" || s == "class" || s == "union" || s == "enum") tag = true;
    if (s == "<") {
      if (tag && name != std::string::npos) return false;  // a partial specialisation: struct X<T*>
      i = skip_angles(t, i);
      if (i == std::string::npos) return false;
      --i;
      continue;
    }
    if (s == "(" || s == "=" || s == "{" || s == ";" || s == "[" || s == ":" || s == ",") break;
    if (s == "operator") { name = i; break; }
    if (is_identifier(t[i])) name = i;
  }
  if (name == std::string::npos) return false;
  if (t[name].text == "operator") return !(name > 0 && t[name - 1].text == "::");
  if (name > 1 && t[name - 1].text == "~" && t[name - 2].text == "::") return false;  // S::~S() {...}
  return !(name > 0 && t[name - 1].text == "::");
}

// Whether the "{" at brace (in code, after begin) opens a lambda's body: `] {`, `](...) {`,
// `](...) mutable {` (not `-> type {`: rare at the top level of a cell).
bool is_lambda_body(const std::string& code, std::size_t begin, std::size_t brace) {
  auto back = [&](std::size_t p) {
    while (p > begin && std::isspace(static_cast<unsigned char>(code[p - 1]))) --p;
    return p;
  };
  std::size_t p = back(brace);
  if (p >= begin + 7 && code.compare(p - 7, 7, "mutable") == 0) p = back(p - 7);
  if (p > begin && code[p - 1] == ')') {
    int depth = 0;
    while (p > begin) {
      --p;
      if (code[p] == ')') ++depth;
      else if (code[p] == '(' && --depth == 0) break;
    }
    p = back(p);
  }
  return p > begin && code[p - 1] == ']';
}

// Where the chunk starting at i ends (one past its ";" or "}"), and whether it had one.
std::size_t chunk_end(const std::string& source, const std::string& code, std::size_t i, bool& terminated) {
  const std::size_t n = code.size();
  const std::vector<Token> head = tokens_of(source, i, std::min(n, i + 400));
  const std::string first = head.empty() ? "" : head[0].text;
  int depth = 0;
  bool saw_equals = false, saw_parens = false;
  std::size_t last_open_brace_prev = std::string::npos;  // the char before the depth-0 "{"
  bool brace_is_lambda = false;                          // that "{" opens a lambda's body
  // After a call (`std::cout << f(1) << S{1}.b`), a "{" after a name is still a braced initialiser, unless the
  // name is a function's qualifier (`g() const {`) or a trailing return type (`auto g() -> int {`).
  bool brace_init_after_call = false;
  std::size_t last_close_paren = std::string::npos;  // of the depth-0 ")" seen last
  for (std::size_t k = i; k < n; ++k) {
    const char c = code[k];
    if (c == '(' || c == '[') {
      if (depth == 0 && c == '(') saw_parens = true;
      ++depth;
    } else if (c == ')' || c == ']') {
      if (--depth == 0 && c == ')') last_close_paren = k;
    } else if (c == '{') {
      if (depth == 0) {
        std::size_t p = k;
        while (p > i && std::isspace(static_cast<unsigned char>(code[p - 1]))) --p;
        last_open_brace_prev = p > i ? p - 1 : std::string::npos;
        brace_is_lambda = is_lambda_body(code, i, k);
        std::size_t w = p;
        while (w > i && is_ident_char(code[w - 1])) --w;
        static const std::set<std::string> qualifiers = {"const", "noexcept", "override", "final", "mutable",
                                                         "volatile", "try", "else", "do"};
        brace_init_after_call = saw_parens && w < p && qualifiers.count(code.substr(w, p - w)) == 0 &&
                                !(last_close_paren != std::string::npos &&
                                  code.substr(last_close_paren, k - last_close_paren).find("->") != std::string::npos);
      }
      ++depth;
    } else if (c == '}') {
      --depth;
      if (depth == 0) {
        std::size_t m = k + 1;
        while (m < n && std::isspace(static_cast<unsigned char>(code[m]))) ++m;
        std::size_t w = m;
        while (w < n && is_ident_char(code[w])) ++w;
        const std::string next_word = code.substr(m, w - m);
        const char next = m < n ? code[m] : '\0';
        if (next_word == "else" || next_word == "catch" || (first == "do" && next_word == "while")) continue;
        const bool tag = first == "struct" || first == "class" || first == "union" || first == "enum" ||
                         first == "typedef" || first == "using" ||
                         (first == "template" && code.find_first_of("{", i) > code.find("struct", i)) ||
                         (first == "template" && code.find_first_of("{", i) > code.find("class", i) &&
                          code.find("class", i) != std::string::npos && !saw_parens);
        const bool brace_init = (!saw_parens || brace_init_after_call) && first != "namespace" && first != "extern" && first != "try" &&
                                first != "do" && first != "{" && last_open_brace_prev != std::string::npos &&
                                (is_ident_char(code[last_open_brace_prev]) || code[last_open_brace_prev] == '>');
        const bool continues = next == '.' || next == '(' || next == '[' || next == ',' || next == '-' ||
                               next == '+' || next == '*' || next == '/' || next == '<' || next == '>' ||
                               next == '=' || next == '&' || next == '|' || next == '?' || next == ':' ||
                               next == '%' || next == '^';
        // A function or control statement's body ends the chunk; `[] { ... }(1)` and `S{1}.f()` go on.
        const bool may_continue = continues && (first == "[" || !saw_parens || brace_is_lambda);
        if (tag || saw_equals || brace_init || may_continue) {
          if (next == '\0') { terminated = false; return n; }  // e.g. `S{1}` at the end: an expression
          continue;
        }
        if (next == ';') { terminated = true; return m + 1; }
        terminated = true;
        return k + 1;
      }
    } else if (c == '=' && depth == 0) {
      // a lone '=' (an initialiser), not == <= >= != or operator=
      const char before = k > i ? code[k - 1] : ' ';
      const char after = k + 1 < n ? code[k + 1] : ' ';
      const bool op = std::string("=!<>+-*/%&|^").find(before) != std::string::npos || after == '=' ||
                      (k >= i + 8 && code.compare(k - 8, 8, "operator") == 0);
      if (!op) saw_equals = true;
    } else if (c == ';' && depth == 0) {
      terminated = true;
      return k + 1;
    }
  }
  terminated = false;
  return n;
}

}  // namespace

std::vector<Chunk> split_top_level(const std::string& body) {
  const std::string code = code_only(body);
  std::vector<Chunk> chunks;
  std::size_t i = 0;
  while (true) {
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i >= code.size()) break;
    if (code[i] == ';') { ++i; continue; }
    bool terminated = true;
    const std::size_t end = chunk_end(body, code, i, terminated);
    std::size_t last = end;
    while (last > i && std::isspace(static_cast<unsigned char>(code[last - 1]))) --last;
    Chunk chunk;
    chunk.begin = i;
    chunk.end = last;
    const std::vector<Token> t = tokens_of(body, i, last);
    chunk.kind = classify(t);
    if (!terminated && chunk.kind == Chunk::statement) chunk.kind = Chunk::expression;
    chunk.redefinable = chunk.kind == Chunk::declaration && redefinable(t);
    chunk.terminated = terminated;
    chunks.push_back(chunk);
    i = end;
  }
  return chunks;
}

std::string declared_variable(const std::string& body, const Chunk& chunk) {
  if (chunk.kind != Chunk::declaration) return "";
  const std::vector<Token> t = tokens_of(body, chunk.begin, chunk.end);
  static const std::set<std::string> no_variable = {"namespace", "template", "using", "typedef", "extern",
                                                    "static_assert", "friend", "operator"};
  if (t.empty() || no_variable.count(t[0].text) || has_function_body(t)) return "";
  // Declarator by declarator (depth-0 commas): the name is the last identifier before the declarator's
  // initialiser or parameters (the first depth-0 = ( { [); a class body `class C { ... } c` is skipped.
  std::string name;
  bool in_initialiser = false, tag = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (s == "struct" || s == "class" || s == "union" || s == "enum") tag = true;
    if (!in_initialiser && s == "<") {
      const std::size_t after = skip_angles(t, i);
      if (after == std::string::npos) return "";
      i = after - 1;
      continue;
    }
    if (s == "(" || s == "[" || s == "{") {
      const bool class_body = s == "{" && tag && !in_initialiser;
      // `T f()` or `T f(int x)`: a function's declaration, no variable.
      if (s == "(" && !in_initialiser && i + 1 < t.size() &&
          (t[i + 1].text == ")" || declaration_keywords().count(t[i + 1].text)))
        return "";
      if (!class_body) in_initialiser = true;
      int depth = 0;  // skip to the matching bracket
      for (; i < t.size(); ++i) {
        if (t[i].text == "(" || t[i].text == "[" || t[i].text == "{") ++depth;
        else if ((t[i].text == ")" || t[i].text == "]" || t[i].text == "}") && --depth == 0) break;
      }
      if (class_body) { tag = false; name.clear(); }
      continue;
    }
    if (s == "=") in_initialiser = true;
    else if (s == ",") { in_initialiser = false; name.clear(); }
    else if (!in_initialiser && is_identifier(t[i]) && declaration_keywords().count(s) == 0) name = s;
  }
  return name;
}

bool shows_result(const std::string& body, const std::vector<Chunk>& chunks) {
  if (chunks.empty()) return false;
  const Chunk& last = chunks.back();
  return last.kind == Chunk::expression || (!last.terminated && !declared_variable(body, last).empty());
}

namespace {

// Whether every ( [ { in code_only() text closes, in order.
bool balanced(const std::string& code) {
  std::string open;
  for (char c : code) {
    if (c == '(' || c == '[' || c == '{') open += c;
    else if (c == ')' || c == ']' || c == '}') {
      const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.empty() || open.back() != want) return false;
      open.pop_back();
    }
  }
  return open.empty();
}

// The cell's result: xcpp::detail::result_sink's comma operator shows a value (not void).
std::string result_of(const std::string& expression, const std::string& id) {
  return "void " + id + "() { ((" + expression + "), xcpp::detail::result_sink{}); } int " + id + "_run = (" + id +
         "(), 0);";
}

// A lambda of a top-level declaration (`auto f = [&] { return v; };`) is at namespace scope, where a
// capture-default captures nothing and clang refuses it ("non-local lambda expression cannot have a
// capture-default"); cling accepts it, since its declarations are parsed first inside a function. So the
// default goes (blanks in its place, the columns stay): `[&]` -> `[ ]`, `[=, n = 2]` -> `[   n = 2]`. Only
// outside braces: a lambda in a function's body or a class's member initialiser keeps it.
std::string without_capture_default(const std::string& declaration) {
  std::string out = declaration;
  const std::vector<Token> t = tokens_of(declaration, 0, declaration.size());
  int braces = 0;
  for (std::size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].text == "{") ++braces;
    else if (t[i].text == "}") --braces;
    if (braces != 0 || t[i].text != "[" || i == 0) continue;
    const std::string& before = t[i - 1].text;
    const bool introducer = before == "=" || before == "(" || before == "," || before == "return";
    const std::string& mode = t[i + 1].text;
    if (!introducer || (mode != "&" && mode != "=") || (t[i + 2].text != "]" && t[i + 2].text != ",")) continue;
    out[t[i + 1].at] = ' ';
    if (t[i + 2].text == ",") out[t[i + 2].at] = ' ';
  }
  return out;
}

// A redefinable declaration in the cell's inline namespace (cell_wrap.hpp says why), reopened for each one.
std::string in_cell_namespace(const std::string& declaration, const std::string& cell_namespace) {
  return "inline namespace " + cell_namespace + " { " + declaration + kNamespaceEndMarker;
}

// `namespace N { ... }` (also `namespace A::B {`): where its braces are in the chunk's text, or npos if the
// chunk is no such block (an alias `namespace M = N;`, `inline namespace`, `extern`, ...). Not an anonymous
// `namespace {`: clang's lookup through its implicit using-directive then finds both definitions.
std::pair<std::size_t, std::size_t> namespace_braces(const std::string& text) {
  const std::vector<Token> t = tokens_of(text, 0, text.size());
  const auto none = std::make_pair(std::string::npos, std::string::npos);
  if (t.size() < 3 || t[0].text != "namespace") return none;
  std::size_t i = 1;
  while (i < t.size() && (is_identifier(t[i]) || t[i].text == "::")) ++i;
  if (i == 1 || i >= t.size() || t[i].text != "{" || t.back().text != "}") return none;
  return {t[i].at, t.back().at};
}

// A namespace block's declarations wrapped as a cell's are (each redefinable one in the cell's inline
// namespace, nested blocks likewise), so that re-running `namespace my { double f(...) {...} }` replaces f.
std::string wrap_namespace_block(const std::string& text, const std::string& cell_namespace) {
  const auto [open, close] = namespace_braces(text);
  if (open == std::string::npos) return text;
  const std::string inner = text.substr(open + 1, close - open - 1);
  std::string out = text.substr(0, open + 1);
  std::size_t copied = 0;
  for (const Chunk& c : split_top_level(inner)) {
    const std::string piece = inner.substr(c.begin, c.end - c.begin);
    out += inner.substr(copied, c.begin - copied);
    if (c.kind == Chunk::declaration && c.redefinable) out += in_cell_namespace(piece, cell_namespace);
    else if (c.kind == Chunk::declaration) out += wrap_namespace_block(piece, cell_namespace);
    else out += piece;  // no statements at namespace scope: clang says so
    copied = c.end;
  }
  return out + inner.substr(copied) + text.substr(close);
}

}  // namespace

std::vector<std::string> wrap_cell(const std::string& body, unsigned serial) {
  const std::vector<Chunk> chunks = split_top_level(body);
  const std::string cell_namespace = std::string(kKernelNamePrefix) + std::to_string(serial);
  std::vector<std::string> pieces(1);
  std::size_t copied = 0;
  int k = 0;
  for (const Chunk& c : chunks) {
    ++k;
    const std::string text = body.substr(c.begin, c.end - c.begin);
    const std::string code = code_only(text);
    // clang 22 runs the initialiser of a `const` (or static) variable before the other
    // initialisers of its input, so before the cell's statements above it: such a declaration
    // starts a new piece (compiled and run after the ones before it), unless it comes first.
    const bool internal_variable = c.kind == Chunk::declaration &&
                                   (code.rfind("const ", 0) == 0 || code.rfind("static ", 0) == 0) &&
                                   !has_function_body(tokens_of(text, 0, text.size()));
    const std::string gap = body.substr(copied, c.begin - copied);
    if (internal_variable && k > 1) {
      std::size_t lines = 0;
      for (const std::string& piece : pieces)
        for (char ch : piece) lines += ch == '\n';
      lines += static_cast<std::size_t>(std::count(gap.begin(), gap.end(), '\n'));
      pieces.emplace_back(lines, '\n');  // the same line numbers as in the cell
      // (what was between the chunks, such as comments, keeps its lines in the earlier piece)
    } else {
      pieces.back() += gap;
    }
    const std::string id = std::string(kKernelNamePrefix) + std::to_string(serial) + "_" + std::to_string(k);
    std::string& out = pieces.back();
    if (!balanced(code)) {
      // Brackets that do not close (a typo, `f(1;`) stay outside any wrapper: inside the kernel's function,
      // clang 22's error recovery can end the input with that function's scope popped, and the diagnostics
      // it then gives at the end of the input (Sema::ActOnEndOfTranslationUnit -> getCurFunctionDecl) read
      // the freed scope: a segfault of clang (it was the "CompilerCrash" of issue 34's raw-string cell).
      out += text;
    } else if (c.kind == Chunk::declaration) {
      // A last declaration without its `;` (`int a = 5`): declared, then its variable shown (cling).
      const std::string declaration = c.terminated ? text : text + ";";
      out += c.redefinable ? in_cell_namespace(without_capture_default(declaration), cell_namespace)
                           : wrap_namespace_block(declaration, cell_namespace);
      const std::string variable = c.terminated ? "" : declared_variable(body, c);
      if (!variable.empty()) out += result_of(variable, id + "_0");
    } else if (c.kind == Chunk::statement) {
      out += "void " + id + "() { " + text + " ;} int " + id + "_run = (" + id + "(), 0);";
    } else {
      out += result_of(text, id);
    }
    copied = c.end;
  }
  pieces.back() += body.substr(copied);
  return pieces;
}

}  // namespace tapegrad_xcpp
