#include "cpp_tokens.hpp"

#include <cctype>

namespace tapegrad_xcpp {

namespace {

bool starts_identifier(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}
bool continues_identifier(char c) { return starts_identifier(c) || std::isdigit(static_cast<unsigned char>(c)); }

// True if only spaces and tabs precede position i on its line.
bool at_line_start(const std::string& s, std::size_t i) {
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
  return i == 0 || s[i - 1] == '\n';
}

bool is_string_prefix(const std::string& p) {
  return p == "u8" || p == "u" || p == "U" || p == "L" || p == "R" || p == "u8R" || p == "uR" || p == "UR" ||
         p == "LR";
}

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s), n_(s.size()) {}

  std::vector<CppToken> run() {
    while (i_ < n_) {
      const char c = s_[i_];
      if (c == '\\' && i_ + 1 < n_ && s_[i_ + 1] == '\n') { i_ += 2; continue; }  // a line continuation
      if (std::isspace(static_cast<unsigned char>(c))) { ++i_; continue; }
      if (c == '#' && at_line_start(s_, i_)) preprocessor_line();
      else if (c == '/' && i_ + 1 < n_ && s_[i_ + 1] == '/') line_comment();
      else if (c == '/' && i_ + 1 < n_ && s_[i_ + 1] == '*') block_comment();
      else if (c == '"' || c == '\'') literal(i_, i_, false);
      else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i_ + 1 < n_ && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))))
        number();
      else if (starts_identifier(c)) identifier_or_prefixed_literal();
      else {
        const std::size_t len = c == ':' && i_ + 1 < n_ && s_[i_ + 1] == ':' ? 2 : 1;
        push(CppToken::punctuation, i_, i_ + len);
      }
    }
    return std::move(out_);
  }

 private:
  void push(CppToken::Kind kind, std::size_t b, std::size_t e, bool open = false) {
    CppToken t;
    t.kind = kind;
    t.begin = b;
    t.end = e;
    t.open = open;
    out_.push_back(t);
    i_ = e;
  }

  // To the end of the line, past line continuations.
  std::size_t line_end(std::size_t i) const {
    while (i < n_ && s_[i] != '\n') i += s_[i] == '\\' && i + 1 < n_ && s_[i + 1] == '\n' ? 2 : 1;
    return i;
  }

  void preprocessor_line() { push(CppToken::preprocessor, i_, line_end(i_)); }
  void line_comment() { push(CppToken::comment, i_, line_end(i_)); }

  void block_comment() {
    const std::size_t close = s_.find("*/", i_ + 2);
    if (close == std::string::npos) push(CppToken::comment, i_, n_, true);
    else push(CppToken::comment, i_, close + 2);
  }

  // A literal whose prefix starts at begin and whose quote is at quote; raw for R"...".
  void literal(std::size_t begin, std::size_t quote, bool raw) {
    const char q = s_[quote];
    CppToken t;
    t.kind = q == '"' ? CppToken::string : CppToken::character;
    t.begin = begin;
    if (raw) {
      // R"delim( ... )delim": the delimiter is at most 16 characters, none of them ( ) \ or space.
      std::size_t paren = quote + 1;
      while (paren < n_ && paren - quote <= 17 && s_[paren] != '(' && s_[paren] != ')' && s_[paren] != '\\' &&
             !std::isspace(static_cast<unsigned char>(s_[paren])) && s_[paren] != '"')
        ++paren;
      if (paren < n_ && s_[paren] == '(') {
        const std::string close = ")" + s_.substr(quote + 1, paren - quote - 1) + "\"";
        const std::size_t at = s_.find(close, paren + 1);
        t.inside_begin = paren + 1;
        t.inside_end = at == std::string::npos ? n_ : at;
        t.open = at == std::string::npos;
        t.end = at == std::string::npos ? n_ : at + close.size();
        finish(t);
        return;
      }
      // not a valid raw string: read it as an ordinary one (clang will say what is wrong)
    }
    std::size_t i = quote + 1;
    while (i < n_ && s_[i] != q && s_[i] != '\n') i += s_[i] == '\\' && i + 1 < n_ ? 2 : 1;
    t.inside_begin = quote + 1;
    t.inside_end = std::min(i, n_);
    if (i < n_ && s_[i] == q) t.end = i + 1;
    else {  // unterminated: to the end of its line (open if the source ends first)
      t.end = std::min(i, n_);
      t.open = i >= n_;
    }
    finish(t);
  }

  void finish(CppToken t) {
    if (!t.open)  // a user-defined literal's suffix ("abc"s, 'x'_c) belongs to the literal
      while (t.end < n_ && continues_identifier(s_[t.end])) ++t.end;
    out_.push_back(t);
    i_ = t.end;
  }

  void number() {
    std::size_t j = i_ + 1;
    while (j < n_) {
      const char c = s_[j];
      if ((c == '+' || c == '-') && (s_[j - 1] == 'e' || s_[j - 1] == 'E' || s_[j - 1] == 'p' || s_[j - 1] == 'P'))
        ++j;  // an exponent's sign (1e-3, 0x1p+4)
      else if (c == '\'' && j + 1 < n_ && std::isalnum(static_cast<unsigned char>(s_[j + 1])))
        ++j;  // a digit separator (1'000'000)
      else if (continues_identifier(c) || c == '.')
        ++j;
      else
        break;
    }
    push(CppToken::number, i_, j);
  }

  void identifier_or_prefixed_literal() {
    std::size_t j = i_ + 1;
    while (j < n_ && continues_identifier(s_[j])) ++j;
    const std::string word = s_.substr(i_, j - i_);
    if (j < n_ && (s_[j] == '"' || (s_[j] == '\'' && word.back() != 'R')) && is_string_prefix(word)) {
      literal(i_, j, word.back() == 'R' && s_[j] == '"');
      return;
    }
    push(CppToken::identifier, i_, j);
  }

  const std::string& s_;
  const std::size_t n_;
  std::size_t i_ = 0;
  std::vector<CppToken> out_;
};

}  // namespace

std::vector<CppToken> cpp_tokens(const std::string& source) { return Lexer(source).run(); }

}  // namespace tapegrad_xcpp
