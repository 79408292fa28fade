#pragma once
// Rich display in Jupyter (xeus-cling, xeus-cpp, tapegrad-xcpp): a Tensor or the Tape shown as an HTML
// table, a PNG file shown as an image.
//
// xeus-cling looks for a free function `nl::json mime_bundle_repr(const T&)`
// in T's namespace (found by ADL) whenever a cell ends with an expression of
// type T, or when `xcpp::display(x)` is called. The HTML itself is built by
// plain functions (to_html) compiled into libtapegrad, so that it is tested
// without a kernel; only the thin mime_bundle_repr layer is notebook-only and
// guarded, so this header compiles in any program.

#include <string>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// An HTML table: name, shape, how it was made, and value and gradient side by
// side (large tensors are cut to their first rows/columns, with a note).
std::string to_html(const Tensor& t);
// An HTML table of the tape's entries: index, op, inputs -> output.
std::string to_html(const Tape& tape);

// Text made safe inside HTML: & < > " as entities.
std::string escape_html(const std::string& s);

// A PNG file to display (e.g. a gnuplot plot).
struct PngFile {
  std::string path;
};
// The file's bytes, base64-encoded: what Jupyter's "image/png" wants.
std::string png_base64(const PngFile& png);
std::string base64_encode(const std::string& bytes);

}  // namespace tapegrad

// ---- notebook-only: the mime bundles (xeus kernels, or on request) ----
#if defined(__has_include)
// __CLING__: xeus-cling; __CLANG_REPL__: clang's incremental interpreter, under the
// project's kernel (kernel/, tapegrad-xcpp) or xeus-cpp.
#if (defined(__CLING__) || defined(__CLANG_REPL__)) && __has_include(<xcpp/xdisplay.hpp>) && \
    __has_include(<nlohmann/json.hpp>)
#define TAPEGRAD_XEUS 1
#endif
#endif

#if defined(TAPEGRAD_XEUS) || defined(TAPEGRAD_WITH_MIME_BUNDLE)
#include <nlohmann/json.hpp>

namespace tapegrad {

inline nlohmann::json mime_bundle_repr(const Tensor& t) {
  auto bundle = nlohmann::json::object();
  bundle["text/html"] = to_html(t);
  bundle["text/plain"] = t.to_string();
  return bundle;
}

inline nlohmann::json mime_bundle_repr(const Tape& tape) {
  auto bundle = nlohmann::json::object();
  bundle["text/html"] = to_html(tape);
  bundle["text/plain"] = tape.to_string();
  return bundle;
}

inline nlohmann::json mime_bundle_repr(const PngFile& png) {
  auto bundle = nlohmann::json::object();
  bundle["image/png"] = png_base64(png);
  bundle["text/plain"] = png.path;
  return bundle;
}

}  // namespace tapegrad
#endif

#include <iostream>
#if defined(TAPEGRAD_XEUS)
#include <xcpp/xdisplay.hpp>
#endif

namespace tapegrad {

// Says where the PNG is, and shows it in the notebook under a xeus kernel (xeus-cling,
// xeus-cpp, tapegrad-xcpp); anywhere else (clang-repl, a program) it only says where it is.
inline void show_png(const std::string& path) {
  std::cout << "plot written to " << path << std::endl;
#if defined(TAPEGRAD_XEUS)
  xcpp::display(PngFile{path});
#endif
}

}  // namespace tapegrad
