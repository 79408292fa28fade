#pragma once
// The language of a report: "zh" for anything starting with zh (zh, zh_CN, zh-CN.UTF-8), "en" for the rest,
// the environment's TAPEGRAD_LANG when none is given. Header-only: one rule that the exercises' grader and the
// lab (applications on the library) both apply, so that one TAPEGRAD_LANG sets them alike.
#include <cstdlib>
#include <string>

namespace tapegrad {

// The rule alone, no environment: "zh" for zh*, else "en".
inline std::string language_code(const std::string& lang) { return lang.rfind("zh", 0) == 0 ? "zh" : "en"; }

inline std::string report_language(const std::string& given = "") {
  if (!given.empty()) return language_code(given);
  const char* env = std::getenv("TAPEGRAD_LANG");
  return language_code(env ? env : "");
}

}  // namespace tapegrad
