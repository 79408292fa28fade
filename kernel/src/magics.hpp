#pragma once
// The magics a cell may start with, as xeus-cling spells them:
//   %timeit [-n N] [-r R] statement     time a statement (N loops per run, R runs)
//   %%timeit [-n N] [-r R]              time the rest of the cell
//   %%file [-a] name                    write (-a: append) the rest of the cell to a file
//   ?name   name?                       the declaration of name and the comment above it
//   %undo                               undo the last cell that compiled
// Anything else that starts with % is an unknown magic: a clear error. Plain string work
// here; the kernel runs them (interpreter.cpp).

#include <string>
#include <vector>

namespace tapegrad_xcpp {

struct Magic {
  enum Kind { none, timeit, file, help, undo, unknown } kind = none;
  std::string written;    // the magic as written (for messages), e.g. "%%timeit"
  std::string argument;   // timeit: the statement; file: the file name; help: the name
  std::string rest;       // the lines after a line magic (run as a cell afterwards)
  long number = 0;        // timeit -n (0: choose, as xeus-cling does)
  int repeat = 7;         // timeit -r
  bool append = false;    // %%file -a
  std::string error;      // a magic it knows, with arguments it cannot read
};

Magic read_magic(const std::string& cell);

// xeus-cling's %timeit figures: 3 significant digits in s, ms, us or ns.
std::string format_time(double seconds);
// "1.23 ms +- 45.6 us per loop (mean +- std. dev. of 7 runs 100 loops each)"
std::string timeit_report(const std::vector<double>& run_seconds, long number);

}  // namespace tapegrad_xcpp
