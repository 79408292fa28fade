#include "magics.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

namespace tapegrad_xcpp {

namespace {

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Reads "-n N", "-r R" (timeit) or "-a" (file) from the front of args; returns what follows.
std::string read_options(Magic& m, const std::string& args, bool timeit) {
  std::size_t at = 0;
  while (true) {
    const std::size_t b = args.find_first_not_of(" \t", at);
    if (b == std::string::npos) return "";
    const std::size_t e = std::min(args.find_first_of(" \t", b), args.size());
    const std::string word = args.substr(b, e - b);
    if (timeit && (word == "-n" || word == "-r")) {
      const std::size_t vb = args.find_first_not_of(" \t", e);
      const std::size_t ve = vb == std::string::npos ? vb : std::min(args.find_first_of(" \t", vb), args.size());
      long value = 0;
      try {
        if (vb != std::string::npos) value = std::stol(args.substr(vb, ve - vb));
      } catch (const std::exception&) {
        value = 0;
      }
      if (value < 1) {
        m.error = m.written + ": " + word + " needs a positive whole number";
        return "";
      }
      if (word == "-n") m.number = value;
      else m.repeat = static_cast<int>(value);
      at = ve;
    } else if (!timeit && word == "-a") {
      m.append = true;
      at = e;
    } else {
      return trim(args.substr(b));
    }
  }
}

}  // namespace

Magic read_magic(const std::string& cell) {
  Magic m;
  const std::string text = trim(cell);
  static const std::regex help_before(R"(^\?\s*((::)?[A-Za-z_]\w*(::[A-Za-z_~]\w*)*)$)");
  static const std::regex help_after(R"(^((::)?[A-Za-z_]\w*(::[A-Za-z_~]\w*)*)\s*\?$)");
  std::smatch found;
  if (std::regex_match(text, found, help_before) || std::regex_match(text, found, help_after)) {
    m.kind = Magic::help;
    m.written = "?";
    m.argument = found[1].str();
    return m;
  }
  if (text.empty() || text[0] != '%') return m;
  const std::size_t line_end = text.find('\n');
  const std::string first = text.substr(0, line_end);
  const std::string after = line_end == std::string::npos ? "" : text.substr(line_end + 1);
  const bool cell_magic = first.rfind("%%", 0) == 0;
  const std::size_t name_end = first.find_first_of(" \t");
  m.written = first.substr(0, name_end);
  const std::string name = m.written.substr(cell_magic ? 2 : 1);
  const std::string args = name_end == std::string::npos ? "" : first.substr(name_end + 1);
  if (name == "timeit") {
    m.kind = Magic::timeit;
    const std::string stmt = read_options(m, args, true);
    if (cell_magic) {
      m.argument = after;
      if (!stmt.empty() && m.error.empty()) m.error = "%%timeit: the code to time goes on the lines below it";
    } else {
      m.argument = stmt;
      m.rest = after;
    }
    if (trim(m.argument).empty() && m.error.empty()) m.error = m.written + ": no statement to time";
  } else if (name == "file" && cell_magic) {
    m.kind = Magic::file;
    m.argument = read_options(m, args, false);
    m.rest = after.empty() ? "" : after + "\n";
    if (m.argument.empty()) m.error = "%%file: no file name (usage: %%file [-a] name)";
  } else if (name == "undo" && !cell_magic) {
    m.kind = Magic::undo;
    m.rest = after;
    if (!trim(args).empty()) m.error = "%undo takes no arguments (it undoes the last cell)";
  } else {
    m.kind = Magic::unknown;
    m.error = "unknown magic " + m.written +
              "; this kernel knows %timeit, %%timeit, %%file, %undo and ?name (or name?)";
  }
  return m;
}

std::string format_time(double seconds) {
  static const char* const units[] = {"s", "ms", "us", "ns"};
  static const double scaling[] = {1, 1e3, 1e6, 1e9};
  int order = 3;
  if (seconds > 0.0) order = std::clamp(-static_cast<int>(std::floor(std::floor(std::log10(seconds)) / 3)), 0, 3);
  std::ostringstream out;
  out.precision(3);
  out << seconds * scaling[order] << " " << units[order];
  return out.str();
}

std::string timeit_report(const std::vector<double>& run_seconds, long number) {
  const double n = static_cast<double>(run_seconds.size());
  double mean = 0;
  for (double r : run_seconds) mean += r / static_cast<double>(number);
  mean /= n;
  double var = 0;
  for (double r : run_seconds) var += std::pow(r / static_cast<double>(number) - mean, 2);
  const double stdev = std::sqrt(var / n);
  const std::size_t repeat = run_seconds.size();
  std::ostringstream out;
  out << format_time(mean) << " +- " << format_time(stdev) << " per loop (mean +- std. dev. of " << repeat
      << " run" << (repeat == 1 ? ", " : "s ") << number << " loop" << (number == 1 ? "" : "s") << " each)\n";
  return out.str();
}

}  // namespace tapegrad_xcpp
