# Notebook tests: every notebooks/*.ipynb runs end to end in real Jupyter: nbclient
# (Debian's python3-nbclient, run by /usr/bin/python3) executes it through the project's
# kernel (kernel/, tapegrad-xcpp, kernelspec xcpp17); run_notebook.py explains the checks.
# One ctest test per notebook, label "notebook". The deliberately broken notebooks here
# prove that failures are caught, on the right cell, and that the next cell still runs.
#
#   ctest -L notebook            all of them
#   /usr/bin/python3 tests/notebooks/run_notebook.py notebooks/01_tensors_and_tape.ipynb \
#       --kernelspecs build/share/jupyter --lib-dir build -v      one, showing its output

# /usr/bin/python3 first: a python3 earlier on PATH (pyenv, conda) may have no Jupyter.
find_program(TAPEGRAD_JUPYTER_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH DOC "Debian's Python 3, with its Jupyter")
find_program(TAPEGRAD_JUPYTER_PYTHON NAMES python3)
set(_nb_dir ${CMAKE_CURRENT_LIST_DIR})

# xeus-cling's rule for definitions, on every notebook (globbed when the test runs, so a
# new notebook is checked without re-configuring), and on a fixture that breaks it.
if(TAPEGRAD_JUPYTER_PYTHON)
  add_test(NAME notebook.cling_rule
           COMMAND sh -c "exec \"$0\" \"$1\" \"$2\"/*.ipynb \"$2\"/zh/*.ipynb" ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/cling_rule.py
                   ${PROJECT_SOURCE_DIR}/notebooks)
  add_test(NAME notebook.cling_rule_catches_violation
           COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/cling_rule.py --expect-violation ${_nb_dir}/broken_cling_rule.ipynb)
  # One source per notebook (notebooks/source/*.md) for both languages: tools/notebooks.py writes them.
  add_test(NAME notebook.sources COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/notebook_sources_test.py)
  set_tests_properties(notebook.cling_rule notebook.cling_rule_catches_violation notebook.sources
                       PROPERTIES LABELS notebook)
endif()

if(TAPEGRAD_JUPYTER_PYTHON)
  execute_process(COMMAND ${TAPEGRAD_JUPYTER_PYTHON} -c "import nbclient, jupyter_client"
                  RESULT_VARIABLE _nb_python_ok OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT TAPEGRAD_HAVE_KERNEL OR NOT TAPEGRAD_JUPYTER_PYTHON OR NOT _nb_python_ok EQUAL 0)
  message(STATUS "Notebook tests skipped: they need the kernel (see above) and Debian's python3-nbclient "
                 "and jupyter-client (scripts/deps.sh test installs them)")
  return()
endif()

set(_nb_runner ${_nb_dir}/run_notebook.py)
# The notebooks' pragmas point at ../build; the tests use this build's library instead.
set(_nb_args --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT} --lib-dir $<TARGET_FILE_DIR:tapegrad>
             --expectations ${_nb_dir}/expectations.json)
set(_nb_env "OPENBLAS_NUM_THREADS=1;JUPYTER_PATH=${TAPEGRAD_KERNELSPEC_ROOT}")

file(GLOB _notebooks CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/notebooks/*.ipynb)
foreach(_nb IN LISTS _notebooks)
  get_filename_component(_name ${_nb} NAME_WE)
  add_test(NAME notebook.${_name} COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_runner} ${_nb} ${_nb_args})
  set_tests_properties(notebook.${_name} PROPERTIES LABELS notebook TIMEOUT 900 ENVIRONMENT "${_nb_env}")
endforeach()

# The Chinese lessons (notebooks/zh/, from the same sources): their code cells are the English ones' (notebook.sources
# checks that), so one build type runs them; the Release pass skips them.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Release")
  file(GLOB _notebooks_zh CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/notebooks/zh/*.ipynb)
  foreach(_nb IN LISTS _notebooks_zh)
    get_filename_component(_name ${_nb} NAME_WE)
    add_test(NAME notebook.zh.${_name} COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_runner} ${_nb} ${_nb_args})
    set_tests_properties(notebook.zh.${_name} PROPERTIES LABELS notebook TIMEOUT 900 ENVIRONMENT "${_nb_env}")
  endforeach()
endif()

# The runner must fail for the right reason on each broken notebook (and only that one).
foreach(_reason compile exception expectation)
  add_test(NAME notebook.runner_catches_${_reason}
           COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_runner} ${_nb_dir}/broken_${_reason}.ipynb
                   ${_nb_args} --expect-failure ${_reason})
  set_tests_properties(notebook.runner_catches_${_reason} PROPERTIES LABELS notebook TIMEOUT 300
                       ENVIRONMENT "${_nb_env}")
endforeach()

# The kernel itself, message by message (jupyter_client): state, output order, results and
# displays, compile errors, exceptions, Interrupt, restart, a malformed connection file.
add_test(NAME notebook.kernel_protocol
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/kernel_protocol.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT}
                 --kernel $<TARGET_FILE:tapegrad-xcpp> --lib-dir $<TARGET_FILE_DIR:tapegrad>
                 --include-dir ${PROJECT_SOURCE_DIR}/include)
set_tests_properties(notebook.kernel_protocol PROPERTIES LABELS notebook TIMEOUT 600 ENVIRONMENT "${_nb_env}")

# What no build type changes is checked once, in the default build: the kernel's handling of cells (the learner's
# notebook, kernel_cells, cling_spec, xeus-cling's demo) and the pages in Chromium. The Release pass of
# scripts/test.sh skips them (about 8 minutes of test time, 4 of CI); its lesson notebooks and kernel_protocol still
# run the Release kernel, and the sanitizer pass runs the kernel's text scanners. (Not indented: the blocks read as
# the other tests'.)
if(NOT CMAKE_BUILD_TYPE STREQUAL "Release")
# A learner's notebook (issue 24): 320 cells from a fixed seed (definitions and re-runs, typos,
# exceptions, crashes, lambdas, Interrupts, magics), each followed by a probe cell that uses every
# name defined so far and instantiates new templates. A few minutes.
add_test(NAME notebook.learner_notebook
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/learner_notebook.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT}
                 --lib-dir $<TARGET_FILE_DIR:tapegrad> --include-dir ${PROJECT_SOURCE_DIR}/include --seed 24 --cells 320)
set_tests_properties(notebook.learner_notebook PROPERTIES LABELS notebook TIMEOUT 900 ENVIRONMENT "${_nb_env}")

# Notebooks 01, 06 and 07 in the classic Notebook page in headless Chromium ("Run All"), with
# the draw() SVGs of 01 and 06 and the backward_steps() slider of 01, and a tiny sweep's index.html; the
# screenshots go to <build>/tests/notebook_browser/. Skipped (not passed) without chromium.
add_test(NAME notebook.browser
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/browser_check.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT}
                 --lib-dir $<TARGET_FILE_DIR:tapegrad> --include-dir ${PROJECT_SOURCE_DIR}/include
                 --out ${CMAKE_CURRENT_BINARY_DIR}/notebook_browser
                 --expect "01_tensors_and_tape.ipynb=.output_html table"
                 --expect "06_post_vs_pre_norm.ipynb=.output_png img"
                 --expect "07_transformer_block.ipynb=.output_html table"
                 --svg 01_tensors_and_tape.ipynb --svg 06_post_vs_pre_norm.ipynb --steps 01_tensors_and_tape.ipynb
                 --sweep-page $<TARGET_FILE:tapegrad-depth>
                 ${PROJECT_SOURCE_DIR}/notebooks/01_tensors_and_tape.ipynb
                 ${PROJECT_SOURCE_DIR}/notebooks/06_post_vs_pre_norm.ipynb
                 ${PROJECT_SOURCE_DIR}/notebooks/07_transformer_block.ipynb)
set_tests_properties(notebook.browser PROPERTIES LABELS notebook TIMEOUT 900 ENVIRONMENT "${_nb_env}"
                     SKIP_REGULAR_EXPRESSION "SKIP:")
# The Chinese pages in headless Chromium: lesson 06 in Chinese ("Run All", its plot, its Markdown drawn by a CJK
# font) and a tiny sweep's index.html with --lang zh (its headings and cells drawn by a CJK font: Noto Sans CJK,
# fonts-noto-cjk, not boxes). The screenshots are in <build>/tests/notebook_browser_zh/ (06_post_vs_pre_norm.cell.png:
# the plot's cell and the text above it, as docs/notebook06.zh.png shows). Skipped without chromium.
add_test(NAME notebook.browser_zh
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/browser_check.py --out ${CMAKE_CURRENT_BINARY_DIR}/notebook_browser_zh
                 --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT} --lib-dir $<TARGET_FILE_DIR:tapegrad>
                 --include-dir ${PROJECT_SOURCE_DIR}/include
                 --expect "06_post_vs_pre_norm.ipynb=.output_png img"
                 --cjk "06_post_vs_pre_norm.ipynb=.text_cell_render h1"
                 --cjk "06_post_vs_pre_norm.ipynb=.text_cell_render p"
                 --cell-shot "06_post_vs_pre_norm.ipynb=.output_png img"
                 --sweep-page $<TARGET_FILE:tapegrad-depth> --sweep-page-lang zh
                 ${PROJECT_SOURCE_DIR}/notebooks/zh/06_post_vs_pre_norm.ipynb)
set_tests_properties(notebook.browser_zh PROPERTIES LABELS "notebook;lab" TIMEOUT 600 ENVIRONMENT "${_nb_env}"
                     SKIP_REGULAR_EXPRESSION "SKIP:")
endif()  # NOT Release

# The README's third command: scripts/notebook.sh starts Jupyter Notebook with the kernel
# (--check: the server lists xcpp17, then stops; the build is this one, already done).
add_test(NAME notebook.script COMMAND ${PROJECT_SOURCE_DIR}/scripts/notebook.sh --check)
# And scripts/notebook.sh --lang zh serves the Chinese lessons (notebooks/zh/).
add_test(NAME notebook.script_zh COMMAND ${PROJECT_SOURCE_DIR}/scripts/notebook.sh --lang zh --check)
set_tests_properties(notebook.script notebook.script_zh PROPERTIES LABELS notebook TIMEOUT 300
                     ENVIRONMENT "TAPEGRAD_BUILD_DIR=${PROJECT_BINARY_DIR};TAPEGRAD_NOTEBOOK_SKIP_BUILD=1")
set_tests_properties(notebook.script_zh PROPERTIES PASS_REGULAR_EXPRESSION "lessons in notebooks/zh")

# Opening and saving a notebook through the Jupyter server leaves git clean: the kernelspec's display
# name is the notebooks' "C++17" (issue 38).
add_test(NAME notebook.save_clean
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/save_clean.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT}
                 ${PROJECT_SOURCE_DIR}/notebooks/01_tensors_and_tape.ipynb)
set_tests_properties(notebook.save_clean PROPERTIES LABELS notebook TIMEOUT 300)

if(NOT CMAKE_BUILD_TYPE STREQUAL "Release")  # the same in every build (see above)
# Issue 34's cells, through jupyter_client: raw strings and other lexical forms, a cell clang once crashed
# on, values shown in cling's format, and ?name help (with comments, through using-directives).
add_test(NAME notebook.kernel_cells
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/kernel_cells.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT}
                 --lib-dir $<TARGET_FILE_DIR:tapegrad> --include-dir ${PROJECT_SOURCE_DIR}/include)
set_tests_properties(notebook.kernel_cells PROPERTIES LABELS notebook TIMEOUT 600 ENVIRONMENT "${_nb_env}")

# cling's own lit tests as the specification (issue 45): cling_spec/*.json, one fresh kernel per cling test
# file; the cases not yet as in cling are the test's EXPECTED_FAILURES (a listed case that passes fails it).
add_test(NAME notebook.cling_spec
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/cling_spec.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT})
set_tests_properties(notebook.cling_spec PROPERTIES LABELS notebook TIMEOUT 900 ENVIRONMENT "${_nb_env}")

# xeus-cling's demo cells, written in the spirit of its own notebook, each with its output (issue 34).
add_test(NAME notebook.xeus_cling_demo
         COMMAND ${TAPEGRAD_JUPYTER_PYTHON} ${_nb_dir}/xeus_cling_demo.py --kernelspecs ${TAPEGRAD_KERNELSPEC_ROOT})
set_tests_properties(notebook.xeus_cling_demo PROPERTIES LABELS notebook TIMEOUT 600 ENVIRONMENT "${_nb_env}")
endif()  # NOT Release
