#pragma once
// The columns a text takes on a terminal, to align tables of Chinese text: std::setw counts bytes, and a
// Chinese character is 3 bytes of UTF-8 drawn 2 columns wide. Used by the grader's report and the lab's
// summary.txt. Header-only: a few lines, and the lab and the grader need it without more of libtapegrad.

#include <cstddef>
#include <string>

namespace tapegrad {

// Unicode's East Asian Wide and Fullwidth characters (drawn two columns wide): Hangul Jamo, CJK
// punctuation to Yi, Hangul syllables, CJK compatibility ideographs, vertical and compatibility forms,
// full-width forms, and the supplementary ideographic planes. Everything else counts one column.
inline bool is_wide_character(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

// The columns of a UTF-8 text: 2 per wide character, 1 per other character (not per byte).
inline std::size_t display_width(const std::string& utf8) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    // The length of this character's UTF-8 sequence from its lead byte (a stray continuation byte: 1).
    const std::size_t length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length && i + k < utf8.size(); ++k)
      code = (code << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    columns += is_wide_character(code) ? 2 : 1;
    i += length;
  }
  return columns;
}

// text and spaces after it (left-aligned) or before it (right-aligned), `width` columns in all; a text
// wider than that as it is.
inline std::string pad_right(const std::string& text, std::size_t width) {
  const std::size_t used = display_width(text);
  return used >= width ? text : text + std::string(width - used, ' ');
}
inline std::string pad_left(const std::string& text, std::size_t width) {
  const std::size_t used = display_width(text);
  return used >= width ? text : std::string(width - used, ' ') + text;
}

}  // namespace tapegrad
