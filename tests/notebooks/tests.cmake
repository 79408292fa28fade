# Notebook tests: every notebooks/*.ipynb runs end to end through clang-repl-22
# (run_notebook.py explains how), one ctest test per notebook, label "notebook".
# The deliberately broken notebooks here prove that the runner does fail.
#
#   ctest -L notebook            all of them
#   python3 tests/notebooks/run_notebook.py notebooks/01_tensors_and_tape.ipynb \
#       --lib-dir <build dir> -v  one, showing its output

find_program(TAPEGRAD_CLANG_REPL NAMES clang-repl-22 DOC "clang-repl for the notebook tests")
find_program(TAPEGRAD_PYTHON3 NAMES python3 DOC "Python 3 for the notebook runner (stdlib only)")

if(NOT TAPEGRAD_CLANG_REPL OR NOT TAPEGRAD_PYTHON3)
  message(STATUS "Notebook tests skipped: clang-repl-22 (package clang-tools-22) or python3 not found")
  return()
endif()

set(_nb_runner ${CMAKE_CURRENT_LIST_DIR}/run_notebook.py)
# The notebooks' pragmas point at ../build; the tests use this build's library instead.
set(_nb_args --clang-repl ${TAPEGRAD_CLANG_REPL} --lib-dir $<TARGET_FILE_DIR:tapegrad>
             --expectations ${CMAKE_CURRENT_LIST_DIR}/expectations.json)

file(GLOB _notebooks CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/notebooks/*.ipynb)
foreach(_nb IN LISTS _notebooks)
  get_filename_component(_name ${_nb} NAME_WE)
  add_test(NAME notebook.${_name} COMMAND ${TAPEGRAD_PYTHON3} ${_nb_runner} ${_nb} ${_nb_args})
  set_tests_properties(notebook.${_name} PROPERTIES LABELS notebook TIMEOUT 900
                       ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
endforeach()

# The runner must fail for the right reason on each broken notebook.
foreach(_reason compile exception expectation)
  add_test(NAME notebook.runner_catches_${_reason}
           COMMAND ${TAPEGRAD_PYTHON3} ${_nb_runner} ${CMAKE_CURRENT_LIST_DIR}/broken_${_reason}.ipynb
                   ${_nb_args} --expect-failure ${_reason})
  set_tests_properties(notebook.runner_catches_${_reason} PROPERTIES LABELS notebook TIMEOUT 300)
endforeach()
