#pragma once
// What the grader's exercises 11 to 16 (exercise_softmax_forward.cpp ... exercise_rope.cpp) share: a mistake
// that can sit in any of an exercise's parts, and the scalars and index lists their cases carry as arrays.

#include <cstdint>
#include <vector>

#include "grader.hpp"

namespace tapegrad::exercise::detail {

// A mistake the learner can make in one part or in several (the safe softmax and the online one, a forward and
// its backward): one catalogue entry per non-empty set of the parts in `parts` (default: every part), the
// outputs of the others the reference's. `wrong` gives every output as the mistake computes it. The entries
// share the id: the catalogue lists it once.
void add_in_any_parts(Spec& spec, const std::string& id, const std::vector<std::size_t>& outputs_per_part,
                      const Runner& wrong, const Text& hint, std::vector<std::size_t> parts = {});

// A 0-d array holding v (a loss, a flag, a count in a case's inputs).
Array scalar(double v);
// An array of whole numbers (targets, positions, lengths, stored as doubles in a case) as a list.
std::vector<std::int64_t> int_list(const Array& a);
std::vector<std::size_t> size_list(const Array& a);
Array array_of(const std::vector<double>& values);

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise::detail {
// The specs of exercises 11 to 16 (by name, as exercises/table.tsv: make_spec reads them from there).
Spec softmax_spec();
Spec cross_entropy_spec();
Spec multi_head_attention_spec();
Spec multi_head_attention_backward_spec();
Spec grouped_query_attention_spec();
Spec rope_spec();
}  // namespace tapegrad::exercise::detail
