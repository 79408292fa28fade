# Tests of the scripts in scripts/ (with fakes on PATH: they install nothing).
add_test(NAME scripts.deps_waits_for_apt_lock
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/deps_lock_test.sh ${CMAKE_CURRENT_BINARY_DIR}/scripts-deps)
set_tests_properties(scripts.deps_waits_for_apt_lock PROPERTIES
  PASS_REGULAR_EXPRESSION "PASS: deps_lock" FAIL_REGULAR_EXPRESSION "FAIL:" LABELS scripts TIMEOUT 120)

# The install (docs/using-tapegrad.md) into a temporary prefix: the installed tapegrad-depth runs, and the
# installed kernel starts from the installed kernelspec and runs a cell (install_test.py says what it checks).
find_program(TAPEGRAD_JUPYTER_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH DOC "Debian's Python 3, with its Jupyter")
if(TAPEGRAD_JUPYTER_PYTHON)
  if(TAPEGRAD_HAVE_KERNEL)
    set(_install_kernel --kernel)
  endif()
  add_test(NAME scripts.install
    COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/install_test.py ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/scripts-install ${_install_kernel})
  set_tests_properties(scripts.install PROPERTIES
    PASS_REGULAR_EXPRESSION "PASS: install" FAIL_REGULAR_EXPRESSION "FAIL:" LABELS "scripts;install" TIMEOUT 300)
endif()

# CMakePresets.json: each preset's folder is named after it (release -> build-release/), as the scripts use them.
if(TAPEGRAD_JUPYTER_PYTHON)
  add_test(NAME scripts.presets COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/presets_test.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(scripts.presets PROPERTIES PASS_REGULAR_EXPRESSION "PASS: presets" FAIL_REGULAR_EXPRESSION "FAIL:"
    LABELS scripts TIMEOUT 60)
endif()

# scripts/debug.sh: builds build-debug/ on a fresh clone (fakes), and stops where the tour starts (real gdb).
if(TARGET tapegrad_gdb_layer_norm_by_hand)
  add_test(NAME scripts.debug COMMAND ${CMAKE_CURRENT_LIST_DIR}/debug_script_test.sh ${PROJECT_SOURCE_DIR}
                                      ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/scripts-debug)
  set_tests_properties(scripts.debug PROPERTIES PASS_REGULAR_EXPRESSION "PASS: debug_script"
    FAIL_REGULAR_EXPRESSION "FAIL:" LABELS "scripts;gdb" TIMEOUT 180)
endif()
