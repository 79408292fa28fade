#pragma once
// How the kernel tests show one of the splitter's pieces: its kind and text, so that Catch2 prints both.
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

#include "cell_wrap.hpp"

namespace tapegrad_xcpp {
inline std::ostream& operator<<(std::ostream& out, Chunk::Kind kind) {
  return out << (kind == Chunk::declaration ? "declaration" : kind == Chunk::statement ? "statement" : "expression");
}
}  // namespace tapegrad_xcpp

namespace Catch {
template <>
struct StringMaker<std::pair<tapegrad_xcpp::Chunk::Kind, std::string>> {
  static std::string convert(const std::pair<tapegrad_xcpp::Chunk::Kind, std::string>& p) {
    std::ostringstream out;
    out << "\n  " << p.first << ": " << p.second;
    return out.str();
  }
};
}  // namespace Catch
