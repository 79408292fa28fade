# Tests of the scripts in scripts/ (with fakes on PATH: they install nothing).
add_test(NAME scripts.deps_waits_for_apt_lock
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/deps_lock_test.sh ${CMAKE_CURRENT_BINARY_DIR}/scripts-deps)
set_tests_properties(scripts.deps_waits_for_apt_lock PROPERTIES
  PASS_REGULAR_EXPRESSION "PASS: deps_lock" FAIL_REGULAR_EXPRESSION "FAIL:" LABELS scripts TIMEOUT 120)
