# gdb test: run gdb in batch mode on an -O0 -g build of examples/tape_walkthrough.cpp,
# stop in relu's backward, print tensors and the tape through the pretty-printers
# (loaded from libtapegrad.so's .debug_gdb_scripts section) and check the text.
# Skipped (not failed) when gdb is not installed.

# The example, built -O0 -g whatever the build type, so that every local is visible.
add_executable(tapegrad_gdb_walkthrough ${PROJECT_SOURCE_DIR}/examples/tape_walkthrough.cpp)
target_link_libraries(tapegrad_gdb_walkthrough PRIVATE tapegrad)
target_compile_options(tapegrad_gdb_walkthrough PRIVATE -O0 -g)

find_program(TAPEGRAD_GDB gdb)
add_test(NAME debug.gdb_pretty_printers
  COMMAND ${CMAKE_COMMAND}
    -DGDB=${TAPEGRAD_GDB}
    -DPROGRAM=$<TARGET_FILE:tapegrad_gdb_walkthrough>
    -DLIBRARY_DIR=$<TARGET_FILE_DIR:tapegrad>
    -DCOMMANDS=${CMAKE_CURRENT_LIST_DIR}/walkthrough.gdb
    -P ${CMAKE_CURRENT_LIST_DIR}/run_gdb_test.cmake)
set_tests_properties(debug.gdb_pretty_printers PROPERTIES
  SKIP_REGULAR_EXPRESSION "SKIPPED:"
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
  TIMEOUT 120)

# The examples run to completion and print what they computed.
add_test(NAME debug.example_tape_walkthrough COMMAND tape_walkthrough)
set_tests_properties(debug.example_tape_walkthrough PROPERTIES
  PASS_REGULAR_EXPRESSION "gradcheck passed"
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
add_test(NAME debug.example_anomaly COMMAND anomaly)
set_tests_properties(debug.example_anomaly PROPERTIES
  PASS_REGULAR_EXPRESSION "anomaly in forward: 'log' \\(tape entry 1\\)"
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
