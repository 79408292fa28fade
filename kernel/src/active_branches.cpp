#include "active_branches.hpp"

#include <cctype>
#include <map>
#include <vector>

#include "cpp_tokens.hpp"

namespace tapegrad_xcpp {

namespace {

// An #if condition's tokens: names, numbers, operators.
std::vector<std::string> condition_tokens(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') break;  // a comment ends the condition
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      continue;
    }
    std::size_t j = i + 1;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    } else {
      static const char* const two[] = {"&&", "||", "==", "!=", "<=", ">="};
      for (const char* op : two)
        if (text.compare(i, 2, op) == 0) j = i + 2;
    }
    out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

// Recursive descent over condition_tokens: || && == != < > <= >= + - ! unary - ( ) defined, names, numbers.
// Any other form makes it give up (std::nullopt).
class Evaluator {
 public:
  Evaluator(std::vector<std::string> tokens, const MacroLookup& macro, int depth)
      : t_(std::move(tokens)), macro_(macro), depth_(depth) {}

  std::optional<long long> all() {
    std::optional<long long> v = binary(0);
    return at_ == t_.size() ? v : std::nullopt;
  }

 private:
  const std::string& peek() const {
    static const std::string end;
    return at_ < t_.size() ? t_[at_] : end;
  }

  // Operators by precedence level, lowest first.
  std::optional<long long> binary(int level) {
    static const std::vector<std::vector<std::string>> levels = {{"||"}, {"&&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"+", "-"}};
    if (level == static_cast<int>(levels.size())) return unary();
    std::optional<long long> left = binary(level + 1);
    while (left) {
      const std::string op = peek();
      bool here = false;
      for (const std::string& o : levels[level]) here = here || o == op;
      if (!here) break;
      ++at_;
      const std::optional<long long> right = binary(level + 1);
      if (!right) return std::nullopt;
      const long long a = *left, b = *right;
      left = op == "||" ? (a || b) : op == "&&" ? (a && b) : op == "==" ? a == b : op == "!=" ? a != b
           : op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : op == ">=" ? a >= b
           : op == "+" ? a + b : a - b;
    }
    return left;
  }

  std::optional<long long> unary() {
    const std::string op = peek();
    if (op == "!" || op == "-" || op == "+") {
      ++at_;
      const std::optional<long long> v = unary();
      if (!v) return std::nullopt;
      return op == "!" ? !*v : op == "-" ? -*v : *v;
    }
    return primary();
  }

  std::optional<long long> primary() {
    if (at_ >= t_.size()) return std::nullopt;
    const std::string token = t_[at_++];
    if (token == "(") {
      const std::optional<long long> v = binary(0);
      if (!v || peek() != ")") return std::nullopt;
      ++at_;
      return v;
    }
    if (token == "defined") {
      const bool parens = peek() == "(";
      if (parens) ++at_;
      if (at_ >= t_.size()) return std::nullopt;
      const std::string name = t_[at_++];
      if (parens) {
        if (peek() != ")") return std::nullopt;
        ++at_;
      }
      return macro_(name).has_value() ? 1 : 0;
    }
    if (std::isdigit(static_cast<unsigned char>(token[0]))) {
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(token, &used, 0);
      } catch (...) {
        return std::nullopt;
      }
      for (std::size_t k = used; k < token.size(); ++k)  // suffixes u, l, ul, ll
        if (std::tolower(static_cast<unsigned char>(token[k])) != 'u' && std::tolower(static_cast<unsigned char>(token[k])) != 'l')
          return std::nullopt;
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_') {
      if (token == "true") return 1;
      if (token == "false") return 0;
      const std::optional<std::string> body = macro_(token);
      if (!body) return 0;  // an undefined name is 0 in #if
      if (depth_ > 8) return std::nullopt;
      const std::vector<std::string> inner = condition_tokens(*body);
      if (inner.empty()) return std::nullopt;  // `#define X` then `#if X`: clang says it is an error
      return Evaluator(inner, macro_, depth_ + 1).all();
    }
    return std::nullopt;
  }

  std::vector<std::string> t_;
  const MacroLookup& macro_;
  int depth_;
  std::size_t at_ = 0;
};

// One #if ... #endif being read.
struct Group {
  bool outer_active = true;  // the lines around the #if are compiled
  bool known = true;         // every condition so far could be evaluated
  bool taken = false;        // a branch before (or this one) was chosen
  bool active = true;        // the current branch's lines are compiled (or kept, if not known)
};

// "#  ifdef  X // c" -> {"ifdef", "X // c"}
std::pair<std::string, std::string> directive_of(const std::string& line) {
  std::string text;
  for (std::size_t i = 0; i < line.size(); ++i) {  // join continuations
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '\n') { ++i; continue; }
    text += line[i];
  }
  std::size_t i = text.find('#') + 1;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t j = i;
  while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
  return {text.substr(i, j - i), text.substr(j)};
}

std::string first_name(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t j = i;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
  return text.substr(i, j - i);
}

}  // namespace

std::optional<long long> preprocessor_value(const std::string& condition, const MacroLookup& macro) {
  const std::vector<std::string> tokens = condition_tokens(condition);
  if (tokens.empty()) return std::nullopt;
  return Evaluator(tokens, macro, 0).all();
}

std::string without_inactive_branches(const std::string& source, const MacroLookup& macro) {
  std::map<std::string, std::optional<std::string>> in_cell;  // the cell's own #define / #undef so far
  const MacroLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = in_cell.find(name);
    return it != in_cell.end() ? it->second : macro(name);
  };
  std::vector<Group> groups;
  auto compiled = [&] { return groups.empty() || groups.back().active; };
  std::string out = source;
  auto blank = [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  for (const CppToken& t : cpp_tokens(source)) {
    if (t.kind != CppToken::preprocessor) {
      if (!compiled()) blank(t.begin, t.end);
      continue;
    }
    const auto [name, rest] = directive_of(source.substr(t.begin, t.end - t.begin));
    // The value of a branch's condition: 1, 0, or unknown.
    auto value = [&](const std::string& kind) -> std::optional<long long> {
      if (kind == "ifdef") return lookup(first_name(rest)).has_value();
      if (kind == "ifndef") return !lookup(first_name(rest)).has_value();
      return preprocessor_value(rest, lookup);
    };
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      Group g;
      g.outer_active = compiled();
      const std::optional<long long> v = g.outer_active ? value(name) : std::optional<long long>(0);
      g.known = v.has_value();
      g.taken = v.value_or(0) != 0;
      g.active = g.outer_active && (!g.known || g.taken);
      groups.push_back(g);
    } else if (name == "elif" && !groups.empty()) {
      Group& g = groups.back();
      if (g.known && g.outer_active && !g.taken) {
        const std::optional<long long> v = value("if");
        g.known = v.has_value();
        g.taken = v.value_or(0) != 0;
        g.active = !g.known || g.taken;
      } else {
        g.active = g.outer_active && !g.known;
      }
    } else if (name == "else" && !groups.empty()) {
      Group& g = groups.back();
      g.active = g.outer_active && (!g.known || !g.taken);
    } else if (name == "endif" && !groups.empty()) {
      groups.pop_back();
    } else if (compiled() && name == "define") {
      const std::string macro_name = first_name(rest);
      const std::size_t after = rest.find(macro_name) + macro_name.size();
      in_cell[macro_name] = after < rest.size() && rest[after] == '(' ? std::string("(") : rest.substr(after);
    } else if (compiled() && name == "undef") {
      in_cell[first_name(rest)] = std::nullopt;
    }
  }
  return out;
}

}  // namespace tapegrad_xcpp
