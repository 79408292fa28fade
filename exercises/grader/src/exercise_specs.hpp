#pragma once
// Every exercise's Spec (exercise_*.cpp), by name: what exercise_checks.cpp lists and the check_* functions
// grade.

#include <string>

#include "grader_spec.hpp"

namespace tapegrad::exercise::detail {

// Each exercise's Spec without the learner's parts (cases, reference, catalogue, finite differences);
// the check_* functions add the parts. By name: "layer_norm_forward", ..., as the files in exercises/.
Spec make_spec(const std::string& exercise);
Spec residual_spec();
Spec layer_norm_forward_spec();
Spec layer_norm_backward_spec();
Spec rms_norm_spec();
Spec batch_norm_spec();
Spec ffn_spec();
Spec add_and_norm_spec();
Spec post_norm_spec();
Spec pre_norm_spec();
Spec softmax_backward_spec();
Spec attention_backward_spec();
Spec adam_step_spec();
// exercises 17-22: exercise_kv_cache_decode.cpp, exercise_swiglu.cpp, exercise_lora.cpp, exercise_dropout.cpp,
// exercise_sampling.cpp, exercise_llama_block.cpp
Spec kv_cache_decode_spec();
Spec swiglu_spec();
Spec lora_spec();
Spec dropout_spec();
Spec sampling_spec();
Spec llama_block_spec();

}  // namespace tapegrad::exercise::detail
