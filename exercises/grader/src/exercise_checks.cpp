// The list of exercises (exercises/table.tsv, the one list: the scripts, the planter and the notebook
// generator read it too) and what is read from it (exercises(), catalogue_ids, make_spec). Each check_*
// sits beside its exercise's spec, in exercise_*.cpp.

#include <algorithm>

#include "exercise_llm_common.hpp"  // the specs of exercises 11 to 16
#include "grader.hpp"

namespace tapegrad::exercise {

using namespace detail;

namespace {

struct Entry {
  const char* name;
  Text title;
  Spec (*spec)();
};

const std::vector<Entry>& entries() {
  // One row of exercises/table.tsv each (exercises/grader/exercise_table.cmake writes them).
  static const std::vector<Entry> e = {
#include "exercise_table.inc"
  };
  return e;
}

}  // namespace

namespace detail {
Spec make_spec(const std::string& exercise) {
  if (exercise == "add_and_norm") return add_and_norm_spec();
  if (exercise == "post_norm") return post_norm_spec();
  if (exercise == "pre_norm") return pre_norm_spec();
  for (const Entry& e : entries())
    if (exercise == e.name && e.spec) return e.spec();
  throw Error("exercise: no exercise named '" + exercise + "'");
}
}  // namespace detail

std::vector<ExerciseInfo> exercises(const std::string& lang) {
  const std::string l = language(lang);
  std::vector<ExerciseInfo> list;
  for (const Entry& e : entries()) list.push_back({e.name, e.title.in(l)});
  return list;
}

std::vector<std::string> catalogue_ids(const std::string& exercise) {
  std::vector<std::string> ids;
  const std::vector<std::string> names = exercise == "blocks" ? std::vector<std::string>{"add_and_norm", "post_norm", "pre_norm"}
                                                              : std::vector<std::string>{exercise};
  for (const std::string& n : names)
    for (const Mistake& m : make_spec(n).mistakes)
      if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) ids.push_back(m.id);
  return ids;
}

}  // namespace tapegrad::exercise
