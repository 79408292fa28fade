# gdb tests: gdb in batch mode on -O0 -g builds of examples, printing through the
# pretty-printers (loaded from libtapegrad.so's .debug_gdb_scripts section).
#   debug.gdb_pretty_printers   tests/debug/printers_walkthrough.gdb, the printers' text in detail
#   debug.gdb_recipe.<name>     each tools/gdb/recipes/<name>.gdb, checked against the
#                               transcripts tools/gdb/README.md shows (run_recipe.py)
# They need debug information in libtapegrad.so: in a Release or MinSizeRel build they
# report "SKIPPED: ..." (ctest: skipped, with the reason), as they do without gdb.

# The examples the recipes run, built -O0 -g whatever the build type, so that every
# local is visible and `next` goes line by line (the library keeps the build's flags).
set(TAPEGRAD_GDB_EXAMPLES tape_walkthrough layer_norm_by_hand ffn_by_hand anomaly_hunt)
foreach(example IN LISTS TAPEGRAD_GDB_EXAMPLES)
  add_executable(tapegrad_gdb_${example} ${PROJECT_SOURCE_DIR}/examples/${example}.cpp)
  target_link_libraries(tapegrad_gdb_${example} PRIVATE tapegrad)
  target_compile_options(tapegrad_gdb_${example} PRIVATE -O0 -g)
endforeach()

find_program(TAPEGRAD_GDB gdb)
find_program(TAPEGRAD_READELF NAMES readelf ${CMAKE_READELF})
find_program(TAPEGRAD_PYTHON3_FOR_GDB NAMES python3)
add_test(NAME debug.gdb_pretty_printers
  COMMAND ${CMAKE_COMMAND}
    -DGDB=${TAPEGRAD_GDB}
    -DPROGRAM=$<TARGET_FILE:tapegrad_gdb_tape_walkthrough>
    -DLIBRARY=$<TARGET_FILE:tapegrad>
    -DREADELF=${TAPEGRAD_READELF}
    -DLIBRARY_DIR=$<TARGET_FILE_DIR:tapegrad>
    -DCOMMANDS=${CMAKE_CURRENT_LIST_DIR}/printers_walkthrough.gdb
    -P ${CMAKE_CURRENT_LIST_DIR}/run_gdb_test.cmake)
set_tests_properties(debug.gdb_pretty_printers PROPERTIES
  SKIP_REGULAR_EXPRESSION "SKIPPED:"
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1"
  LABELS gdb
  TIMEOUT 120)

# One ctest test per recipe file tools/<debugger>/recipes/<name>.<ext>: run_recipe.py runs it in
# batch mode on the example its "# program: examples/<example>" line names and checks the
# transcripts that `doc` shows. Extra arguments go to run_recipe.py.
function(add_recipe_tests debugger ext doc)
  file(GLOB recipes CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tools/${debugger}/recipes/*.${ext})
  foreach(recipe IN LISTS recipes)
    get_filename_component(name ${recipe} NAME_WE)
    file(STRINGS ${recipe} program_line REGEX "^# program: examples/")
    string(REGEX REPLACE "^# program: examples/" "" example "${program_line}")
    add_test(NAME debug.${debugger}_recipe.${name}
      COMMAND ${TAPEGRAD_PYTHON3_FOR_GDB} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/run_recipe.py
        --readelf ${TAPEGRAD_READELF} --build-dir ${CMAKE_BINARY_DIR}
        --library $<TARGET_FILE:tapegrad> --program $<TARGET_FILE:tapegrad_gdb_${example}> --recipe ${recipe}
        --doc ${doc} ${ARGN})
    set_tests_properties(debug.${debugger}_recipe.${name} PROPERTIES
      SKIP_REGULAR_EXPRESSION "SKIPPED:" FAIL_REGULAR_EXPRESSION "FAIL:" TIMEOUT 180 LABELS gdb)
  endforeach()
endfunction()

add_recipe_tests(gdb gdb ${PROJECT_SOURCE_DIR}/tools/gdb/README.md
                 --gdb "${TAPEGRAD_GDB}" --optional-doc ${PROJECT_SOURCE_DIR}/README.md
                 --optional-doc ${PROJECT_SOURCE_DIR}/README.zh-CN.md)

# The examples run to completion and print what they computed; those that
# check something (gradcheck, fused vs by hand, loss going down) exit non-zero
# when it fails.
set(TAPEGRAD_DEBUG_EXAMPLES tape_walkthrough anomaly_hunt layer_norm_by_hand residual_by_hand add_and_norm batch_norm ffn_by_hand
    post_vs_pre_norm tiny_training)
foreach(example IN LISTS TAPEGRAD_DEBUG_EXAMPLES)
  if(TARGET ${example})
    add_test(NAME debug.example_${example} COMMAND ${example})
    set_tests_properties(debug.example_${example} PROPERTIES ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
  endif()
endforeach()
if(TARGET anomaly_hunt)
  set_tests_properties(debug.example_anomaly_hunt PROPERTIES
    PASS_REGULAR_EXPRESSION "anomaly in forward: 'log' \\(tape entry 1\\).*anomaly in backward: the backward of 'sqrt'")
endif()

# The lldb formatters (tools/lldb), the same way: each tools/lldb/recipes/<name>.lldb in
# lldb-22 -b, checked against tools/lldb/README.md. Run from examples/, so that the
# documented `command script import ../tools/lldb/tapegrad_lldb.py` resolves.
find_program(TAPEGRAD_LLDB NAMES lldb-22 DOC "lldb for the lldb formatter tests")
add_recipe_tests(lldb lldb ${PROJECT_SOURCE_DIR}/tools/lldb/README.md
                 --lldb "${TAPEGRAD_LLDB}" --cwd ${PROJECT_SOURCE_DIR}/examples)

# VS Code: .vscode/launch.json has a gdb and an lldb configuration per example, and
# their setup commands load the printers/formatters in batch gdb and lldb-22.
add_test(NAME debug.vscode_launch
  COMMAND ${TAPEGRAD_PYTHON3_FOR_GDB} ${CMAKE_CURRENT_LIST_DIR}/check_vscode.py --source-dir ${PROJECT_SOURCE_DIR}
    --program $<TARGET_FILE:tapegrad_gdb_tape_walkthrough> --library $<TARGET_FILE:tapegrad>
    --readelf ${TAPEGRAD_READELF} --gdb "${TAPEGRAD_GDB}" --lldb "${TAPEGRAD_LLDB}")
set_tests_properties(debug.vscode_launch PROPERTIES
  SKIP_REGULAR_EXPRESSION "SKIPPED:" FAIL_REGULAR_EXPRESSION "FAIL:" TIMEOUT 240 LABELS gdb)

# The README's picture: scripts/draw-readme-graph.sh draws it again, and it must be the committed
# docs/tape_graph.svg (same Graphviz, same bytes; redraw and commit it when draw() changes).
if(TARGET readme_picture)
  add_test(NAME debug.readme_graph
    COMMAND sh -c "TAPEGRAD_README_PICTURE=$<TARGET_FILE:readme_picture> ${PROJECT_SOURCE_DIR}/scripts/draw-readme-graph.sh readme_graph.svg && cmp readme_graph.svg ${PROJECT_SOURCE_DIR}/docs/tape_graph.svg && grep -c 'class=\"node' readme_graph.svg")
  set_tests_properties(debug.readme_graph PROPERTIES LABELS docs PASS_REGULAR_EXPRESSION "wrote readme_graph.svg [(]4 entries[)]\n11\n")
endif()
