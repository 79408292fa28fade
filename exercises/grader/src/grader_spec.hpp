#pragma once
// An exercise as the grader sees it: a Spec, its cases, the library's reference, the learner's functions
// wrapped as Parts, and the catalogue of known mistakes (each with its hint). grade() runs it all and writes
// the Report (grading.cpp).

#include <functional>
#include <string>
#include <vector>

#include "bilingual_text.hpp"
#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise::detail {

// One case: the inputs (their meaning is the exercise's), eps, and whether finite differences of the
// learner's forward are meaningful on it (not on the large-mean case: h = 1e-6 is below its rounding).
struct Case {
  Text name;
  std::vector<Array> in;
  double eps = 1e-5;
  std::string activation;  // the FFN's
  bool fd = true;
};

using Outputs = std::vector<Array>;
using Runner = std::function<Outputs(const Case&)>;

// One function the learner wrote, with the names of what it returns.
struct Part {
  std::string function;
  std::vector<std::string> outputs;
  Runner run;
};

// A known mistake: a wrong implementation of all the exercise's outputs (every part, concatenated).
// by_pattern: the mistake's numbers are rounding noise (E[x²] − E[x]² on a large mean), so it
// matches when the learner fails on exactly the same outputs, not by value.
struct Mistake {
  std::string id;
  Runner run;
  Text hint;
  bool by_pattern = false;
};

// The backward against central differences of the learner's own forward: sum(dy · forward(x))
// differentiated in in[x_input], compared with output `grad_output` (index over all parts' outputs).
struct FiniteDifferences {
  int forward_part = -1;  // -1: none
  int x_input = 0;
  int dy_input = 0;
  int grad_output = 0;
};

struct Spec {
  std::string exercise;
  std::vector<Case> cases;
  Runner reference;  // every part's outputs, concatenated
  std::vector<Part> parts;
  std::vector<Mistake> mistakes;
  // Two catalogued mistakes made at once (id "a+b", a before b in the catalogue's order): tried only
  // when no single mistake explains the failures. Not listed by catalogue_ids.
  std::vector<Mistake> pairs;
  FiniteDifferences fd;
};

Report grade(const Spec& spec, const Options& options);
// A check_* function's body: the learner's functions as the spec's parts, graded.
Report graded(Spec spec, std::vector<Part> parts, const Options& options);

}  // namespace tapegrad::exercise::detail
