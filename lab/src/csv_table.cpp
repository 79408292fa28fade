#include "csv_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "tapegrad/lab/files.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

std::size_t Table::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw Error("plots: the CSV has no column '" + name + "'");
  return static_cast<std::size_t>(it - header.begin());
}

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> parts(1);
  for (char ch : line) {
    if (ch == ',') parts.emplace_back();
    else parts.back().push_back(ch);
  }
  return parts;
}

}  // namespace

Table read_table(const fs::path& path) {
  Table t;
  if (!fs::exists(path)) return t;
  std::istringstream in(read_file(path.string()));
  std::string line;
  if (std::getline(in, line)) t.header = split_csv_line(line);
  while (std::getline(in, line)) {
    t.rows.push_back(split_csv_line(line));
    if (!t.rows.back().empty()) t.rows_of_run[t.rows.back()[0]].push_back(t.rows.size() - 1);
  }
  return t;
}

double csv_number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

const std::vector<std::size_t>& rows_of(const Table& t, const RunConfig& run) {
  static const std::vector<std::size_t> none;
  const auto it = t.rows_of_run.find(run_id(run));
  return it == t.rows_of_run.end() ? none : it->second;
}

}  // namespace tapegrad::lab
