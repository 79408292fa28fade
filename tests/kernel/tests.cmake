# The kernel's text scanners (kernel/src/cpp_tokens.cpp, cell_text.cpp, cell_wrap.cpp), without clang
# or Jupyter: a table of C++'s lexical forms in statements, declarations and mixed cells, and a fuzz
# test of the splitter. ctest names start with "kernel." (ctest -R kernel).
if(NOT TARGET tapegrad_xcpp_text)
  return()
endif()
add_executable(tapegrad_xcpp_text_tests ${CMAKE_CURRENT_LIST_DIR}/cell_text_cases.cpp
               ${CMAKE_CURRENT_LIST_DIR}/active_branches_cases.cpp
               ${CMAKE_CURRENT_LIST_DIR}/diagnostic_text_cases.cpp
               ${CMAKE_CURRENT_LIST_DIR}/splitter_fuzz.cpp)
target_link_libraries(tapegrad_xcpp_text_tests PRIVATE tapegrad_xcpp_text Catch2::Catch2)
# The fuzz test compiles the rewritten cells with clang 22 (syntax only), when it is there.
if(TAPEGRAD_CLANG22)
  target_compile_definitions(tapegrad_xcpp_text_tests PRIVATE TAPEGRAD_XCPP_TEST_CLANG="${TAPEGRAD_CLANG22}"
                             TAPEGRAD_XCPP_TEST_INCLUDE="${PROJECT_SOURCE_DIR}/kernel/include")
endif()
catch_discover_tests(tapegrad_xcpp_text_tests TEST_PREFIX "kernel."
  PROPERTIES LABELS unit FAIL_REGULAR_EXPRESSION "No tests ran")
