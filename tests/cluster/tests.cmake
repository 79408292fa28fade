# Sharded sweeps as users run them: scripts/slurm/submit.sh on a real one-node Slurm cluster that the test
# starts (as root; skipped otherwise or without the packages), and scripts/sweep-parallel.sh with GNU parallel.
# Each checks that the merged CSVs are byte-identical to an unsharded sweep's, also after a shard was
# cancelled or killed and resumed, and that no finished run is done again.
# An unoptimised (Debug) lab is about ten times slower: its sweeps take a tenth of the steps, so that
# each run lasts about as long as in an optimised build and the test's deadlines hold.
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(cluster_steps_divisor 10)
else()
  set(cluster_steps_divisor 1)
endif()
if(TARGET tapegrad-depth)
  foreach(case slurm parallel)
    add_test(NAME cluster.${case}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/${case}_test.sh $<TARGET_FILE:tapegrad-depth>
              ${CMAKE_CURRENT_BINARY_DIR}/cluster/${case} ${PROJECT_SOURCE_DIR})
    set_tests_properties(cluster.${case} PROPERTIES
      PASS_REGULAR_EXPRESSION "PASS: ${case}"
      SKIP_REGULAR_EXPRESSION "SKIP:"
      FAIL_REGULAR_EXPRESSION "FAIL:"
      ENVIRONMENT "OPENBLAS_NUM_THREADS=1;TAPEGRAD_STEPS_DIVISOR=${cluster_steps_divisor}"
      LABELS "cluster"
      TIMEOUT 240)
  endforeach()
endif()
