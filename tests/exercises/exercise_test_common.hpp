#pragma once
// What the exercise tests share: the headers every learner file includes (included here first, so
// that a learner file included inside a namespace does not re-open them there), and the checks.

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tapegrad_grader/exercise.hpp"

// A learner's file, graded: which exercise, the diagnosis it must get, and the check call.
struct Planted {
  std::string exercise, id;
  std::function<tapegrad::exercise::Report(const tapegrad::exercise::Options&)> check;
};

inline tapegrad::exercise::Options english() {
  tapegrad::exercise::Options o;
  o.lang = "en";
  return o;
}

// Every planted mistake of `exercise` fails, with its own id as the diagnosis.
inline void check_planted(const std::string& exercise, const std::vector<Planted>& planted) {
  int seen = 0;
  for (const Planted& p : planted) {
    if (p.exercise != exercise) continue;
    ++seen;
    const tapegrad::exercise::Report r = p.check(english());
    INFO("planted " << p.exercise << " / " << p.id << ":\n" << r.to_string());
    CHECK_FALSE(r.passed);
    CHECK(r.diagnosis == p.id);
    CHECK(r.result_line() == "result: fail diagnosis=" + p.id);
  }
  CHECK(seen > 0);
}

// The mistakes written as a learner writes them (tests/exercises/learner_style/, in
// test_exercise_learner_style.cpp): they cover catalogue ids too.
const std::vector<Planted>& learner_style_mistakes();

// Every id of every exercise's catalogue has a planted mistake (or a learner-style one).
inline void check_catalogue_covered(const std::vector<Planted>& planted) {
  for (const auto& e : tapegrad::exercise::exercises("en"))
    for (const std::string& id : tapegrad::exercise::catalogue_ids(e.name)) {
      bool found = false;
      for (const Planted& p : planted) found |= p.exercise == e.name && p.id == id;
      for (const Planted& p : learner_style_mistakes()) found |= p.exercise == e.name && p.id == id;
      INFO(e.name << ": no planted mistake for the catalogue's id " << id);
      CHECK(found);
    }
}
