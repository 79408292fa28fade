#pragma once
// C++'s lexical forms, as the kernel's text scanners need them: where each comment, string or
// character literal, number and preprocessor line of a cell begins and ends. One tokenizer for the
// splitter (cell_wrap.hpp), the pragma and trailing-expression reader (cell_text.hpp), the
// redefinition hider and the magics, so that they all agree on what is code. Plain string work.
//
// Forms it knows (each a unit test in tests/kernel/test_cpp_tokens.cpp):
//   - raw strings with any delimiter and prefix: R"(...)", R"x( )" )x", u8R"(...)", LR"(...)",
//     with line breaks inside;
//   - string and character literals with escapes and prefixes: '\'', '\\', u8"...", L'x', U"...";
//   - numbers with digit separators (1'000'000, 0xFF'FF) and exponents (1e-3, 0x1p+4);
//   - // and /* */ comments (quotes or braces inside are not code), line continuations;
//   - preprocessor lines (with their continuations);
//   - punctuation, one character per token except "::" (so `>>` closing two templates is two
//     tokens, `[[` of an attribute two, and `<::` is `<` then `::`, as C++11 reads it).

#include <string>
#include <vector>

namespace tapegrad_xcpp {

struct CppToken {
  enum Kind { identifier, number, string, character, punctuation, comment, preprocessor } kind = punctuation;
  std::size_t begin = 0, end = 0;  // [begin, end) in the source
  // For string and character literals: where the part between the quotes (or a raw string's
  // parentheses) is, so that scanners can blank it.
  std::size_t inside_begin = 0, inside_end = 0;
  bool open = false;  // a comment or literal that the source ends inside
};

// The tokens of source, in order (white space is not a token).
std::vector<CppToken> cpp_tokens(const std::string& source);

}  // namespace tapegrad_xcpp
