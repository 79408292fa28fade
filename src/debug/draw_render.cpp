// render_svg(): Graphviz source -> SVG, by libgvc (Debian's libgraphviz-dev, found by CMake) or,
// in a build without it, by the `dot` program if it is installed.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unistd.h>

#include "tapegrad/debug/draw.hpp"

#if TAPEGRAD_HAS_GRAPHVIZ
#include <graphviz/gvc.h>
#endif

namespace tapegrad {

namespace {

const char* const kInstall =
    "draw: Graphviz is needed to lay out the graph, and neither its library nor its `dot` program is here. "
    "Install it (sudo apt-get install libgraphviz-dev, then rebuild tapegrad; or just graphviz for `dot`). "
    "Without it the text views work: tape_table(), tape().to_string(), and draw_dot() for the source";

[[maybe_unused]] bool have_dot_program() { return std::system("command -v dot > /dev/null 2>&1") == 0; }

// Strips the XML prologue and DOCTYPE, so that the SVG can sit inside HTML.
std::string inline_svg(const std::string& svg) {
  const std::size_t start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

[[maybe_unused]] std::string render_with_dot_program(const std::string& dot) {
  char path[] = "/tmp/tapegrad-draw-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw Error("draw: cannot make a temporary file for `dot`");
  close(fd);
  std::ofstream(path) << dot;
  const std::string command = std::string("dot -Tsvg '") + path + "' 2>&1";
  std::string svg;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) svg.append(buf, n);
    const int status = pclose(pipe);
    std::remove(path);
    if (status != 0) throw Error("draw: `dot -Tsvg` failed: " + svg);
    return svg;
  }
  std::remove(path);
  throw Error("draw: cannot run `dot`");
}

#if TAPEGRAD_HAS_GRAPHVIZ
std::string render_with_libgvc(const std::string& dot) {
  static std::mutex mutex;  // one Graphviz context, used by one thread at a time
  std::lock_guard<std::mutex> lock(mutex);
  static GVC_t* gvc = gvContext();
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) throw Error("draw: Graphviz could not read the graph source: " + std::string(aglasterr() ? aglasterr() : ""));
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    throw Error("draw: Graphviz's dot layout failed");
  }
  char* data = nullptr;
  unsigned int length = 0;
  const int status = gvRenderData(gvc, g, "svg", &data, &length);
  std::string svg = status == 0 && data ? std::string(data, length) : std::string();
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  if (svg.empty())
    throw Error("draw: Graphviz has no SVG renderer here (its plugins are missing: reinstall libgvc6, or run dot -c)");
  return svg;
}
#endif

}  // namespace

std::string graphviz_backend() {
#if TAPEGRAD_HAS_GRAPHVIZ
  return "libgvc";
#else
  return have_dot_program() ? "dot program" : "";
#endif
}

std::string render_svg(const std::string& dot) { return detail::render_svg_with(dot, graphviz_backend()); }

namespace detail {

std::string render_svg_with(const std::string& dot, const std::string& backend) {
  if (backend == "libgvc") {
#if TAPEGRAD_HAS_GRAPHVIZ
    return inline_svg(render_with_libgvc(dot));
#else
    throw Error("draw: this build of tapegrad has no libgvc (libgraphviz-dev was not found when it was built)");
#endif
  }
  if (backend == "dot program" && have_dot_program()) return inline_svg(render_with_dot_program(dot));
  if (backend.empty() || backend == "dot program") throw Error(kInstall);
  throw Error("draw: no Graphviz backend '" + backend + "' (expected libgvc, dot program or none)");
}

}  // namespace detail

}  // namespace tapegrad
