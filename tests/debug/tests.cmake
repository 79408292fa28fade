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

# The examples run to completion and print what they computed; those that
# check something (gradcheck, fused vs by hand, loss going down) exit non-zero
# when it fails.
set(TAPEGRAD_DEBUG_EXAMPLES tape_walkthrough anomaly layer_norm_by_hand residual add_and_norm batch_norm ffn
    post_vs_pre_norm tiny_training)
foreach(example IN LISTS TAPEGRAD_DEBUG_EXAMPLES)
  if(TARGET ${example})
    add_test(NAME debug.example_${example} COMMAND ${example})
    set_tests_properties(debug.example_${example} PROPERTIES ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
  endif()
endforeach()
if(TARGET anomaly)
  set_tests_properties(debug.example_anomaly PROPERTIES
    PASS_REGULAR_EXPRESSION "anomaly in forward: 'log' \\(tape entry 1\\).*anomaly in backward: the backward of 'sqrt'")
endif()
