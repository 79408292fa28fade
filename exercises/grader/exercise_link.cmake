# The link line of a learner's check (the grader, the library, and the library's own link interface): written to
# build/tapegrad_link.txt (one item a line), which scripts/exercise.sh reads to link a learner's check.
# tapegrad's interface carries xtensor-blas and its BLAS/LAPACK (OpenBLAS): a learner's
# xt::linalg::dot needs cblas_dgemm on the program's own link line ("DSO missing from command line").
function(tapegrad_interface_files target out_var)
  set(files)
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(libs)
    foreach(lib IN LISTS libs)
      if(TARGET ${lib})
        tapegrad_interface_files(${lib} sub)
        list(APPEND files ${sub})
      elseif(IS_ABSOLUTE "${lib}")
        list(APPEND files "${lib}")
      elseif(NOT lib MATCHES "^\\$<")
        list(APPEND files "-l${lib}")
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES files)
  set(${out_var} ${files} PARENT_SCOPE)
endfunction()
tapegrad_interface_files(tapegrad _tapegrad_link)
list(JOIN _tapegrad_link "\n" _tapegrad_link_lines)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/tapegrad_link.txt
     CONTENT "$<TARGET_LINKER_FILE:tapegrad_grader>\n$<TARGET_LINKER_FILE:tapegrad>\n${_tapegrad_link_lines}\n")
