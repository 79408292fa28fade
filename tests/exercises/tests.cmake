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
