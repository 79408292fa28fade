# The "write it yourself" exercises (issue 26). The grader's Catch2 tests (test_exercise_*.cpp: every
# solution passes, every planted mistake is diagnosed with its own id, faulty learner code is reported)
# are in tapegrad_tests. Here: scripts/exercise.sh end to end (compiling learner files against this
# build), and that the planted mistakes are what plant_mistakes.py writes.
find_program(TAPEGRAD_EXERCISE_PYTHON NAMES python3)
add_test(NAME exercise.planted_up_to_date
         COMMAND ${TAPEGRAD_EXERCISE_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/plant_mistakes.py --check)
add_test(NAME exercise.cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/exercise_cli_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(exercise.cli PROPERTIES LABELS exercise TIMEOUT 900
                     ENVIRONMENT "TAPEGRAD_BUILD_DIR=$<TARGET_FILE_DIR:tapegrad>;OPENBLAS_NUM_THREADS=1")
set_tests_properties(exercise.planted_up_to_date PROPERTIES LABELS exercise)

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
  add_exercise_notebook_test(exercise_softmax_attention_adam.mistake exercise_softmax_attention_adam
    --fill softmax_backward=${_ex_sol}/08_softmax_backward_solution.cpp
    --fill attention_backward=${CMAKE_CURRENT_LIST_DIR}/mistakes/09_attention_backward__scale_missing.cpp
    --fill adam_step=${_ex_sol}/10_adam_step_solution.cpp)
endif()
# The generated exercise notebooks are what the exercise files say now.
add_test(NAME exercise.notebooks_up_to_date
         COMMAND ${TAPEGRAD_EXERCISE_JUPYTER_PYTHON} ${PROJECT_SOURCE_DIR}/tools/exercise_notebooks.py --check)
set_tests_properties(exercise.notebooks_up_to_date PROPERTIES LABELS exercise
                     PASS_REGULAR_EXPRESSION "PASS: exercise notebooks up to date")
