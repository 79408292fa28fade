# The lab (lab/) is an application on libtapegrad: its unit tests (tests/lab/test_*.cpp, tag [lab])
# are in the one Catch2 binary, which therefore links the lab's library too.
target_link_libraries(tapegrad_tests PRIVATE tapegrad::lab)

# Tests of the tapegrad-depth program on tiny sweeps: determinism across --jobs, sharding + merge,
# --resume (simulated, after a real SIGINT, and with damaged run files), the same sweep run twice, a different
# sweep into a folder of runs (refused; --overwrite), stale figures removed, bad arguments (exit status 2,
# the message, nothing touched), --dump, and the plots (what their scripts say, and that gnuplot draws every
# point strictly inside its panel).
foreach(case determinism shard_merge resume damaged interrupt rerun other_sweep stale_plots help_texts bad_args dump plots)
  add_test(NAME lab.cli.${case}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/lab_cli_test.sh $<TARGET_FILE:tapegrad-depth>
            ${CMAKE_CURRENT_BINARY_DIR}/lab-cli/${case} ${case})
  set_tests_properties(lab.cli.${case} PROPERTIES
    PASS_REGULAR_EXPRESSION "PASS: ${case}"
    FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
    LABELS "lab;cli"
    TIMEOUT 300)
endforeach()

# The command line fuzzed: random argument lists against a folder of finished runs (lab_cli_fuzz.py says what
# it checks). A fixed seed and a fixed number of cases, so that it runs the same every time. Label fuzz: the
# sanitizer pass of scripts/test.sh runs it too, there without the address-space limit (ASan reserves terabytes).
find_program(TAPEGRAD_PYTHON3 python3)
if(TAPEGRAD_PYTHON3)
  if(TAPEGRAD_SANITIZE)
    set(lab_fuzz_memory_gib 0)
  else()
    set(lab_fuzz_memory_gib 2)
  endif()
  add_test(NAME lab.cli.fuzz
    COMMAND ${TAPEGRAD_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/lab_cli_fuzz.py $<TARGET_FILE:tapegrad-depth>
            ${CMAKE_CURRENT_BINARY_DIR}/lab-cli/fuzz --cases 200 --memory-gib ${lab_fuzz_memory_gib})
  set_tests_properties(lab.cli.fuzz PROPERTIES
    PASS_REGULAR_EXPRESSION "PASS: fuzz"
    FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
    LABELS "lab;cli;fuzz"
    TIMEOUT 300)
endif()

# index.html beside a sweep's results, and `tapegrad-depth report DIR` (html_report_test.sh says what it checks).
add_test(NAME lab.cli.html_report
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/html_report_test.sh $<TARGET_FILE:tapegrad-depth> ${CMAKE_CURRENT_BINARY_DIR}/lab-cli/html_report)
set_tests_properties(lab.cli.html_report PROPERTIES PASS_REGULAR_EXPRESSION "PASS: html_report" FAIL_REGULAR_EXPRESSION "FAIL:"
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS "lab;cli" TIMEOUT 300)

# The committed low-precision tables (docs/lab/precision.txt, quoted by docs/lab.md) are what
# scripts/lab-precision.sh prints: about 3 CPU-minutes of sweeps, so in the default build only (the Release
# pass of scripts/test.sh would only repeat the same check).
if(NOT CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT TAPEGRAD_SANITIZE)
  add_test(NAME lab.precision_tables
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/precision_tables_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/lab-precision)
  set_tests_properties(lab.precision_tables PROPERTIES
    PASS_REGULAR_EXPRESSION "PASS: precision_tables"
    FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
    LABELS "lab"
    TIMEOUT 900)
  # The default sweep (3 seeds, as scripts/lab.sh runs it) prints docs/lab/summary.txt under Haswell's kernels and
  # under another's: the README's table holds on every machine (and `report` of its runs in Chinese prints
  # docs/lab/summary.zh.txt). And one seed alone does not (one_seed: the run
  # that moved the README's 32 to 16 on another CPU). default_summary_test.sh says why; a few CPU-minutes each.
  foreach(kernel Haswell other)
    add_test(NAME lab.default_summary.${kernel}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/default_summary_test.sh $<TARGET_FILE:tapegrad-depth> ${PROJECT_SOURCE_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/lab-default-summary/${kernel} summary ${kernel})
    set_tests_properties(lab.default_summary.${kernel} PROPERTIES PASS_REGULAR_EXPRESSION "PASS: default_summary"
      FAIL_REGULAR_EXPRESSION "FAIL:" SKIP_REGULAR_EXPRESSION "SKIPPED:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
      LABELS "lab;docs" TIMEOUT 900)
  endforeach()
  add_test(NAME lab.default_summary.one_seed
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/default_summary_test.sh $<TARGET_FILE:tapegrad-depth> ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/lab-default-summary/one_seed one_seed Haswell other)
  set_tests_properties(lab.default_summary.one_seed PROPERTIES PASS_REGULAR_EXPRESSION "PASS: default_summary"
    FAIL_REGULAR_EXPRESSION "FAIL:" SKIP_REGULAR_EXPRESSION "SKIPPED:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
    LABELS "lab" TIMEOUT 300)
  # The width study's committed tables, data and docs (width_tables_test.sh: the table step on the committed
  # data, the docs quoting it, and 8 of its runs re-run; a few seconds).
  add_test(NAME lab.width_tables
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/width_tables_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/lab-widths)
  set_tests_properties(lab.width_tables PROPERTIES PASS_REGULAR_EXPRESSION "PASS: width_tables"
    FAIL_REGULAR_EXPRESSION "FAIL:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS "lab;docs" TIMEOUT 300)
endif()

# tools/paper_diagnostics.py on --diagnose output at one depth and at two learning rates (paper_diagnostics_test.sh).
add_test(NAME lab.paper_diagnostics
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/paper_diagnostics_test.sh $<TARGET_FILE:tapegrad-depth> ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/lab-paper-diagnostics)
set_tests_properties(lab.paper_diagnostics PROPERTIES PASS_REGULAR_EXPRESSION "PASS: paper_diagnostics"
  FAIL_REGULAR_EXPRESSION "FAIL:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS lab TIMEOUT 300)
# Every setting a column of the per-run CSVs, grouped by with the csv module (listed_columns_test.py says what
# it checks): a 16-run sweep of 6 steps and a --diagnose of 2 runs.
add_test(NAME lab.cli.listed_columns
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/listed_columns_test.py $<TARGET_FILE:tapegrad-depth>
          ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/lab-cli/listed_columns)
set_tests_properties(lab.cli.listed_columns PROPERTIES PASS_REGULAR_EXPRESSION "PASS: listed_columns"
  FAIL_REGULAR_EXPRESSION "FAIL:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS "lab;cli" TIMEOUT 300)

# tapegrad-depth poems: a 4-step run, a refused resume, the missing-corpus error, and docs/lab/poems_run.txt's
# numbers against the margin docs/lab.md states (poems_test.sh says what it checks). Seconds.
add_test(NAME lab.poems
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/poems_test.sh $<TARGET_FILE:tapegrad-depth> ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/lab-poems)
set_tests_properties(lab.poems PROPERTIES PASS_REGULAR_EXPRESSION "PASS: poems" FAIL_REGULAR_EXPRESSION "FAIL:"
  SKIP_REGULAR_EXPRESSION "SKIPPED:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS "lab;cli;docs" TIMEOUT 300)

# The poems depth sweep's committed results (scripts/lab-poems-depth.sh, docs/lab/poems_depth.txt and
# poems_depth_runs.csv): 4 of its runs re-run against the committed losses, its thresholds and its list of chaotic
# cells (poems_depth_test.sh says what it checks). About 15 CPU-seconds.
add_test(NAME lab.poems_depth
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/poems_depth_test.sh $<TARGET_FILE:tapegrad-depth> ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/lab-poems-depth)
set_tests_properties(lab.poems_depth PROPERTIES PASS_REGULAR_EXPRESSION "PASS: poems_depth" FAIL_REGULAR_EXPRESSION "FAIL:"
  SKIP_REGULAR_EXPRESSION "SKIPPED:" ENVIRONMENT "OPENBLAS_NUM_THREADS=1" LABELS "lab;docs" TIMEOUT 300)
