# The "write it yourself" exercises (issue 26). The grader's Catch2 tests (test_exercise_*.cpp: every
# solution passes, every planted mistake is diagnosed with its own id, faulty learner code is reported)
# are in tapegrad_tests. Here: scripts/exercise.sh end to end (compiling learner files against this
# build), and that the kept planted mistakes are what plant_mistakes.py writes.
find_program(TAPEGRAD_EXERCISE_PYTHON NAMES python3)
# The planted mistakes (every catalogued mistake as a learner's wrong file) and their Catch2 test are
# written at build time into planted/ from the reference solutions and exercises/table.tsv; two are
# kept in tests/exercises/mistakes/ as examples, which exercise.planted_up_to_date compares.
set(TAPEGRAD_PLANTED_DIR ${CMAKE_CURRENT_BINARY_DIR}/planted)
file(GLOB _ex_solutions CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/exercises/solutions/*.cpp)
add_custom_command(OUTPUT ${TAPEGRAD_PLANTED_DIR}/test_exercise_mistakes.cpp
  COMMAND ${TAPEGRAD_EXERCISE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/plant_mistakes.py --out ${TAPEGRAD_PLANTED_DIR}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/plant_mistakes.py ${PROJECT_SOURCE_DIR}/tools/exercise_table.py
          ${PROJECT_SOURCE_DIR}/exercises/table.tsv ${_ex_solutions}
  COMMENT "Planting the exercises' mistakes (tests/exercises/plant_mistakes.py)" VERBATIM)
target_sources(tapegrad_tests PRIVATE ${TAPEGRAD_PLANTED_DIR}/test_exercise_mistakes.cpp)
# exercise_test_common.hpp, and the LayerNorm solutions a planted blocks file includes ("solutions/...").
target_include_directories(tapegrad_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/exercises)
add_test(NAME exercise.planted_up_to_date
         COMMAND ${TAPEGRAD_EXERCISE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/plant_mistakes.py --check)
# In the Release build (scripts/test.sh's second pass) --quick: what the library's build can change.
add_test(NAME exercise.cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/exercise_cli_test.sh ${PROJECT_SOURCE_DIR} ${TAPEGRAD_PLANTED_DIR}/mistakes
                 $<$<CONFIG:Release>:--quick>)
set_tests_properties(exercise.cli PROPERTIES LABELS exercise TIMEOUT 900
                     ENVIRONMENT "TAPEGRAD_BUILD_DIR=$<TARGET_FILE_DIR:tapegrad>;OPENBLAS_NUM_THREADS=1")
set_tests_properties(exercise.planted_up_to_date PROPERTIES LABELS exercise)
# exercises/README.md's list of the exercises is exercises/table.tsv's.
add_test(NAME exercise.table_in_readme COMMAND ${TAPEGRAD_EXERCISE_PYTHON} ${PROJECT_SOURCE_DIR}/tools/exercise_table.py)
set_tests_properties(exercise.table_in_readme PROPERTIES LABELS "exercise;docs"
                     PASS_REGULAR_EXPRESSION "PASS: exercises/README.md lists" FAIL_REGULAR_EXPRESSION "FAIL:")

# The exercise notebooks (notebooks/exercise_*.ipynb) run as they are in tests/notebooks (the skeletons:
# "not implemented yet"), and here twice more: with the reference solutions filled in (every check
# green) and with a planted mistake and the report in Chinese (the right diagnosis shown). The
# expectations are the entries <notebook>.solved / .mistake of tests/notebooks/expectations.json.
find_program(TAPEGRAD_EXERCISE_JUPYTER_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TAPEGRAD_HAVE_KERNEL AND TAPEGRAD_EXERCISE_JUPYTER_PYTHON)
  set(_ex_nb_args -- --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT} --lib-dir $<TARGET_FILE_DIR:tapegrad>
                  --expectations ${PROJECT_SOURCE_DIR}/tests/notebooks/expectations.json)
  set(_ex_nb_out ${CMAKE_CURRENT_BINARY_DIR}/exercise_notebooks)
  set(_ex_sol ${PROJECT_SOURCE_DIR}/exercises/solutions)
  set(_ex_planted ${TAPEGRAD_PLANTED_DIR}/mistakes)  # written when tapegrad_tests is built
  function(add_exercise_notebook_test name notebook)
    add_test(NAME notebook.${name}
             COMMAND ${TAPEGRAD_EXERCISE_JUPYTER_PYTHON} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/exercise_notebook.py
                     ${PROJECT_SOURCE_DIR}/notebooks/${notebook}.ipynb --name ${name} --out ${_ex_nb_out} ${ARGN}
                     ${_ex_nb_args})
    set_tests_properties(notebook.${name} PROPERTIES LABELS "notebook;exercise" TIMEOUT 900
                         ENVIRONMENT "OPENBLAS_NUM_THREADS=1;JUPYTER_PATH=${TAPEGRAD_KERNELSPEC_ROOT}")
  endfunction()
  add_exercise_notebook_test(exercise_layer_norm.solved exercise_layer_norm
    --fill layer_norm_forward=${_ex_sol}/02_layer_norm_forward_solution.cpp
    --fill layer_norm_backward=${_ex_sol}/03_layer_norm_backward_solution.cpp)
  add_exercise_notebook_test(exercise_layer_norm.mistake exercise_layer_norm --lang zh
    --fill layer_norm_forward=${_ex_sol}/02_layer_norm_forward_solution.cpp
    --fill layer_norm_backward=${CMAKE_CURRENT_LIST_DIR}/mistakes/03_layer_norm_backward__mean_term_missing.cpp)
  # The notebooks tools/exercise_notebooks.py writes from the exercise files: solved, and one with a mistake.
  add_exercise_notebook_test(exercise_residual_and_norms.solved exercise_residual_and_norms
    --fill residual=${_ex_sol}/01_residual_solution.cpp --fill rms_norm=${_ex_sol}/04_rms_norm_solution.cpp
    --fill batch_norm=${_ex_sol}/05_batch_norm_solution.cpp)
  # The FFN, and the blocks on the LayerNorm solutions (their cells come first; the blocks' helpers in their cell).
  add_exercise_notebook_test(exercise_ffn_and_blocks.solved exercise_ffn_and_blocks
    --fill ffn=${_ex_sol}/06_ffn_solution.cpp --fill blocks=${_ex_sol}/07_blocks_solution.cpp
    --fill layer_norm_forward=${_ex_sol}/02_layer_norm_forward_solution.cpp
    --fill layer_norm_backward=${_ex_sol}/03_layer_norm_backward_solution.cpp)
  add_exercise_notebook_test(exercise_softmax_attention_adam.mistake exercise_softmax_attention_adam
    --fill softmax_backward=${_ex_sol}/08_softmax_backward_solution.cpp
    --fill attention_backward=${CMAKE_CURRENT_LIST_DIR}/mistakes/09_attention_backward__scale_missing.cpp
    --fill adam_step=${_ex_sol}/10_adam_step_solution.cpp)
  # Exercises 11 to 16: solved, and a planted mistake each with the report in Chinese.
  add_exercise_notebook_test(exercise_softmax_cross_entropy.solved exercise_softmax_cross_entropy
    --fill softmax=${_ex_sol}/11_softmax_solution.cpp --fill cross_entropy=${_ex_sol}/12_cross_entropy_solution.cpp)
  add_exercise_notebook_test(exercise_multi_head_attention.solved exercise_multi_head_attention
    --fill multi_head_attention=${_ex_sol}/13_multi_head_attention_solution.cpp
    --fill multi_head_attention_backward=${_ex_sol}/14_multi_head_attention_backward_solution.cpp
    --fill grouped_query_attention=${_ex_sol}/15_grouped_query_attention_solution.cpp)
  add_exercise_notebook_test(exercise_multi_head_attention.mistake exercise_multi_head_attention --lang zh
    --fill multi_head_attention=${_ex_planted}/13_multi_head_attention__mask_after_softmax.cpp
    --fill multi_head_attention_backward=${_ex_sol}/14_multi_head_attention_backward_solution.cpp
    --fill grouped_query_attention=${_ex_planted}/15_grouped_query_attention__kv_heads_tiled.cpp)
  add_exercise_notebook_test(exercise_rope.solved exercise_rope --fill rope=${_ex_sol}/16_rope_solution.cpp)
  add_exercise_notebook_test(exercise_rope.mistake exercise_rope --lang zh
    --fill rope=${_ex_planted}/16_rope__other_style.cpp)
  # Exercises 17-21 (a language model's parts), solved, and with dropout's 1/(1 − p) left out, in Chinese.
  set(_ex_llm_solved --fill kv_cache_decode=${_ex_sol}/17_kv_cache_decode_solution.cpp
    --fill swiglu=${_ex_sol}/18_swiglu_solution.cpp --fill lora=${_ex_sol}/19_lora_solution.cpp
    --fill sampling=${_ex_sol}/21_sampling_solution.cpp)
  add_exercise_notebook_test(exercise_llm_parts.solved exercise_llm_parts ${_ex_llm_solved}
    --fill dropout=${_ex_sol}/20_dropout_solution.cpp)
  add_exercise_notebook_test(exercise_llm_parts.mistake exercise_llm_parts --lang zh ${_ex_llm_solved}
    --fill dropout=${_ex_planted}/20_dropout__inverted_scale_missing.cpp)
  # Exercise 22 (a LLaMA block from the learner's parts), solved, and with k left unrotated, in Chinese.
  add_exercise_notebook_test(exercise_llama_block.solved exercise_llama_block
    --fill llama_block=${_ex_sol}/22_llama_block_solution.cpp)
  add_exercise_notebook_test(exercise_llama_block.mistake exercise_llama_block --lang zh
    --fill llama_block=${_ex_planted}/22_llama_block__rope_not_on_k.cpp)
endif()
# The generated exercise notebooks are what the exercise files say now.
add_test(NAME exercise.notebooks_up_to_date
         COMMAND ${TAPEGRAD_EXERCISE_JUPYTER_PYTHON} ${PROJECT_SOURCE_DIR}/tools/exercise_notebooks.py --check)
set_tests_properties(exercise.notebooks_up_to_date PROPERTIES LABELS exercise
                     PASS_REGULAR_EXPRESSION "PASS: exercise notebooks up to date")
