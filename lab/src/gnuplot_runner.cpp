// Running gnuplot on the figures' scripts: finding it on PATH, and one call per script from inside OUT.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tapegrad/lab/plots.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

namespace {
// 'text' for a POSIX shell.
std::string shell_quote(const std::string& text) {
  std::string q = "'";
  for (char ch : text) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}
}  // namespace

std::string render_plots(const std::string& out, const std::vector<std::string>& scripts, const std::string& gnuplot) {
  std::string problems;
  for (const auto& script : scripts) {
    const std::string log = script + ".log";
    const std::string cmd = "cd " + shell_quote(out) + " && " + shell_quote(gnuplot) + " " + shell_quote(script) +
                            " > " + shell_quote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) problems += "gnuplot failed on " + script + " (see " + log + "); ";
    else fs::remove(fs::path(out) / log);  // only gnuplot's complaints about log scales and such
  }
  return problems;
}

}  // namespace tapegrad::lab
