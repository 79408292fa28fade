#pragma once
// The assembled CSVs (runs.csv, curves.csv, init_grads.csv, ...) read back for the figures: a header, rows of
// text fields, and each run's rows by its id (the "run" column).

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::vector<std::size_t>> rows_of_run;  // by the "run" column

  // The index of a column; throws Error naming it if the CSV has none.
  std::size_t column(const std::string& name) const;
};

// An empty table if the file does not exist (a sweep without runs yet).
Table read_table(const std::filesystem::path& path);

// A field as a number; "nan", "inf" read too.
double csv_number(const std::string& text);

// The rows of a run (none if it has not finished).
const std::vector<std::size_t>& rows_of(const Table& table, const RunConfig& run);

}  // namespace tapegrad::lab
