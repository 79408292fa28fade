#pragma once
// A text the grader writes, in both languages: every hint and label is one.

#include <string>
#include <utility>

namespace tapegrad::exercise::detail {

// A text in both languages.
struct Text {
  std::string en, zh;
  const std::string& in(const std::string& lang) const { return lang == "zh" && !zh.empty() ? zh : en; }
};

// A catalogue's hint: a Text with no default, so that a struct of hints (one field per mistake, e.g.
// NormHints) initialised one short does not compile. A hint is found by its field, not by a string key.
struct Hint {
  Hint(std::string english, std::string chinese) : text{std::move(english), std::move(chinese)} {}
  Text text;
};

}  // namespace tapegrad::exercise::detail
