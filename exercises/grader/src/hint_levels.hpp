#pragma once
// The hint in levels (hint_levels.cpp): what --hint 1|2|3 shows of a catalogue's hint.

#include <string>

#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise::detail {

// The catalogue's hint cut to a level: 0 as written, 1 its first sentence up to a colon (what is wrong), 2 that
// and the formula (of each sentence with an '=', what follows its last colon).
std::string hint_at_level(const std::string& hint, int level, const std::string& lang);
// A line of the learner's file: its number (0: none found) and its text.
struct LearnerLine {
  int line = 0;
  std::string code;
};
// The line of `source` inside `function` that assigns `output` (dk, dx, ...), else its return line.
LearnerLine line_computing(const std::string& source, const std::string& function, const std::string& output);
// Level 3's pointer: where the first failing output is computed ("look at line 42 of f.cpp: ..."), or the
// function to look in when there is no file (a notebook).
std::string line_pointer(const Report& report, const std::string& source, const std::string& lang);

}  // namespace tapegrad::exercise::detail
