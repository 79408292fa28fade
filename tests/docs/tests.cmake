# Docs are tests: every code block of the Markdown docs runs against this build
# (tests/docs/doc_test.py; its first lines are the rules for marking blocks).
#
#   ctest -L docs                                   this test and the checks that it can fail
#   /usr/bin/python3 tests/docs/doc_test.py --source-dir . --build-dir build --scratch /tmp/doc-test --list
#                                                   what would run, without running it
find_program(TAPEGRAD_DOC_PYTHON NAMES python3 HINTS /usr/bin DOC "Python 3 for the doc test (stdlib only)")
if(NOT TAPEGRAD_DOC_PYTHON)
  message(STATUS "Doc test skipped: python3 not found")
  return()
endif()

set(_doc_test ${TAPEGRAD_DOC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/doc_test.py
              --source-dir ${PROJECT_SOURCE_DIR} --build-dir ${PROJECT_BINARY_DIR})
# The snippets run in the build a learner has (scripts/build.sh's default); the Release pass of scripts/test.sh
# skips them, as a build type changes no command's outcome (about 100 s of its test time).
if(NOT CMAKE_BUILD_TYPE STREQUAL "Release")
add_test(NAME docs.snippets COMMAND ${_doc_test} --scratch ${CMAKE_CURRENT_BINARY_DIR}/doc-test/snippets)
if(CMAKE_BUILD_TYPE STREQUAL "Debug")  # an unoptimised library: doc_test.py gives each block 4 times longer
  set(_doc_timeout 2400)
else()
  set(_doc_timeout 600)
endif()
set_tests_properties(docs.snippets PROPERTIES LABELS docs TIMEOUT ${_doc_timeout} ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
endif()

# Each fixtures/<kind>.md is a doc with one kind of mistake; the test must fail for that reason.
file(GLOB _doc_fixtures CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fixtures/*.md)
foreach(_fixture IN LISTS _doc_fixtures)
  get_filename_component(_kind ${_fixture} NAME_WE)
  file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_fixture})
  add_test(NAME docs.catches_${_kind}
           COMMAND ${_doc_test} --scratch ${CMAKE_CURRENT_BINARY_DIR}/doc-test/${_kind}
                   --files ${_rel} --expect-failure ${_kind})
  set_tests_properties(docs.catches_${_kind} PROPERTIES LABELS docs TIMEOUT 300)
endforeach()

# The README's tour ("Read the code in this order") names files and functions that exist; so does README.zh-CN.md's.
add_test(NAME docs.readme_tour COMMAND ${TAPEGRAD_DOC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tour_test.py
                                       --source-dir ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.readme_tour PROPERTIES LABELS docs FAIL_REGULAR_EXPRESSION "FAIL")
add_test(NAME docs.readme_tour_zh COMMAND ${TAPEGRAD_DOC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tour_test.py
                                          --source-dir ${PROJECT_SOURCE_DIR} --readme README.zh-CN.md
                                          --section 按这个顺序读代码)
set_tests_properties(docs.readme_tour_zh PROPERTIES LABELS docs FAIL_REGULAR_EXPRESSION "FAIL")

# The doc test after the quick start's first command has written results/ into the checkout (once, twice),
# in a git checkout and in a plain copy: output folders are never taken for source.
if(TARGET tapegrad-depth)
  add_test(NAME docs.after_a_sweep
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/after_a_sweep_test.sh ${TAPEGRAD_DOC_PYTHON} ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/doc-test/after_a_sweep)
  set_tests_properties(docs.after_a_sweep PROPERTIES LABELS docs TIMEOUT 300 ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
                       PASS_REGULAR_EXPRESSION "PASS: after_a_sweep" FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# Time figures are written once, in docs/lab/times.txt (scripts/measure-times.sh): docs/performance.md shows them,
# the other docs and the programs' help write none of their own (times_test.py).
add_test(NAME docs.times COMMAND ${TAPEGRAD_DOC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/times_test.py
                                 --source-dir ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.times PROPERTIES LABELS docs PASS_REGULAR_EXPRESSION "PASS: times" FAIL_REGULAR_EXPRESSION "FAIL:")

# The README stays short (the developers' guide: at most 150 lines; history goes to CHANGELOG.md), in both languages.
foreach(_readme README.md README.zh-CN.md)
  add_test(NAME docs.length_${_readme}
           COMMAND ${TAPEGRAD_DOC_PYTHON} -c "import sys; n = len(open(sys.argv[1], encoding='utf-8').read().splitlines()); print(f'{sys.argv[1]}: {n} lines (at most 150)'); sys.exit(n > 150)"
                   ${PROJECT_SOURCE_DIR}/${_readme})
  set_tests_properties(docs.length_${_readme} PROPERTIES LABELS docs)
endforeach()
