#include "tapegrad/debug/display.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tapegrad {

namespace {

// Enough to show the shape of the numbers; a notebook is not a data dump.
constexpr std::size_t kMaxRows = 12;
constexpr std::size_t kMaxCols = 12;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// An array as a grid: 0-d and 1-d as one row, 2-d as rows and columns,
// higher ranks as rows of the last axis (all leading axes flattened).
std::string grid(const Array& a) {
  const std::size_t cols = a.dimension() == 0 ? 1 : a.shape().back();
  const std::size_t rows = cols == 0 ? 0 : a.size() / cols;
  std::ostringstream out;
  out << "<table style=\"border-collapse:collapse;font-family:monospace\">";
  for (std::size_t r = 0; r < std::min(rows, kMaxRows); ++r) {
    out << "<tr>";
    for (std::size_t c = 0; c < std::min(cols, kMaxCols); ++c)
      out << "<td style=\"padding:0 6px;text-align:right\">" << number(a.data()[r * cols + c]) << "</td>";
    if (cols > kMaxCols) out << "<td>&hellip;</td>";
    out << "</tr>";
  }
  if (rows > kMaxRows) out << "<tr><td>&vellip;</td></tr>";
  out << "</table>";
  if (rows > kMaxRows || cols > kMaxCols)
    out << "<small>showing " << std::min(rows, kMaxRows) << " of " << rows << " rows, "
        << std::min(cols, kMaxCols) << " of " << cols << " columns</small>";
  return out.str();
}

}  // namespace

std::string escape_html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string to_html(const Tensor& t) {
  if (!t.defined()) return "<p><b>Tensor</b> (undefined)</p>";
  const TensorImpl& impl = t.impl();
  std::ostringstream out;
  out << "<table class=\"tapegrad-tensor\">";
  out << "<tr><th style=\"text-align:left\" colspan=\"2\">Tensor";
  if (!impl.name.empty()) out << " '" << escape_html(impl.name) << "'";
  out << " shape " << shape_str(impl.value.shape());
  if (!impl.made_by.empty()) out << ", made by " << escape_html(impl.made_by);
  if (impl.requires_grad) out << ", requires grad";
  out << "</th></tr>";
  out << "<tr><td>value</td><td>grad</td></tr>";
  out << "<tr><td style=\"vertical-align:top\">" << grid(impl.value) << "</td><td style=\"vertical-align:top\">";
  out << (impl.has_grad ? grid(impl.grad) : std::string("<i>none</i>"));
  out << "</td></tr></table>";
  return out.str();
}

std::string to_html(const Tape& tape) {
  std::ostringstream out;
  out << "<table class=\"tapegrad-tape\"><tr><th colspan=\"4\" style=\"text-align:left\">Tape with "
      << tape.size() << (tape.size() == 1 ? " entry" : " entries") << "</th></tr>";
  out << "<tr><th>#</th><th>op</th><th>inputs</th><th>output</th></tr>";
  for (std::size_t i = 0; i < tape.size(); ++i) {
    const TapeEntry& e = tape[i];
    out << "<tr><td>" << i << "</td><td>" << escape_html(e.op) << "</td><td>";
    for (std::size_t k = 0; k < e.inputs.size(); ++k) out << (k ? ", " : "") << escape_html(e.inputs[k].label());
    out << "</td><td>" << escape_html(e.output.label()) << "</td></tr>";
  }
  out << "</table>";
  return out.str();
}

std::string base64_encode(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {  // 3 bytes -> 4 characters of 6 bits
    const unsigned n = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {table[n >> 18 & 63], table[n >> 12 & 63], table[n >> 6 & 63], table[n & 63]};
  }
  if (i + 1 == bytes.size()) {  // one byte left: two characters and "=="
    const unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    out += {table[n >> 18 & 63], table[n >> 12 & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {  // two bytes left: three characters and "="
    const unsigned n = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += {table[n >> 18 & 63], table[n >> 12 & 63], table[n >> 6 & 63], '='};
  }
  return out;
}

std::string png_base64(const PngFile& png) {
  std::ifstream in(png.path, std::ios::binary);
  if (!in) throw Error("png_base64: cannot open '" + png.path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return base64_encode(bytes.str());
}

}  // namespace tapegrad
