#pragma once
// The grader's machinery (internal to exercises/grader/src), top down: the bilingual text, an exercise's
// Spec (cases, reference, parts, catalogue) and grade(), how the learner's code runs (the sandbox, the
// sanitizers, the compiler), the hint's levels, what the exercises share, and every exercise's Spec.

#include "bilingual_text.hpp"
#include "grader_spec.hpp"
#include "grader_sandbox.hpp"
#include "hint_levels.hpp"
#include "exercise_helpers.hpp"
#include "exercise_specs.hpp"
