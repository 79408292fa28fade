# Tests of the tapegrad-depth program (the depth-stability lab) on tiny sweeps:
# determinism across --jobs, sharding + merge, --resume (simulated and after a real
# SIGINT), bad arguments (exit status 2 and the message), --dump, and the plots.
# The library pieces are tested in the unit binary (tag [lab]).
if(TARGET tapegrad-depth)
  foreach(case determinism shard_merge resume interrupt bad_args dump plots)
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
endif()
