#!/usr/bin/env bash
# Quick start command 2: installs what is missing, builds, runs every test.
#   1. the whole suite (unit tests, notebooks in Jupyter through the kernel, gdb/lldb recipes, CLI,
#      cluster scripts, docs) on the normal build;
#   2. the whole suite again on a Release build (faster code meets the tests' timing; the gdb tests
#      must say SKIPPED there, as a build without debug information cannot be stepped through), less
#      what no build type changes: the committed precision tables and default summaries, exercise.cli's
#      checks of the script's own logic (--quick), the kernel's cell handling (the learner's notebook,
#      kernel_cells, cling_spec, xeus-cling's demo), the pages in Chromium and the docs' snippets;
#   3. the unit tests and the fuzz tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Set TAPEGRAD_SKIP_RELEASE=1 / TAPEGRAD_SKIP_SANITIZERS=1 to skip step 2 / 3 while iterating.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/deps.sh" test
export OPENBLAS_NUM_THREADS=1

echo "== build (RelWithDebInfo) and test"
TAPEGRAD_BUILD_DIR="$root/build" "$root/scripts/build.sh"
# Every Catch2 test case must be its own ctest test: a name with an unbalanced '[' once
# merged 33 cases into one that matched nothing and "passed". The label `unit` holds the cases of
# every Catch2 binary: tapegrad_tests and the kernel's text scanners' (tapegrad_xcpp_text_tests, when
# the kernel is built). (Catch2's list commands exit with the number of tests, hence the || true.)
catch_names() {
  local b
  for b in "$root/build/tests/tapegrad_tests" "$root/build/tests/tapegrad_xcpp_text_tests"; do
    if [ -x "$b" ]; then "$b" --list-test-names-only || true; fi
  done
}
cases=$(catch_names | grep -c .)
registered=$(cd "$root/build" && ctest -N -L unit | sed -n 's/^Total Tests: //p')
# A ';' in a name is ctest's list separator: `ctest -R` then matches nothing and the case "fails" with No tests ran.
if catch_names | grep -q ';'; then
  echo "error: a Catch2 test name contains ';' (ctest cannot run it by name):" >&2
  catch_names | grep ';' >&2
  exit 1
fi
if [ "$cases" != "$registered" ]; then
  echo "error: the Catch2 binaries have $cases test cases but ctest registered $registered under the label unit (check test names for '[' or ']')" >&2
  exit 1
fi
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)")

if [ "${TAPEGRAD_SKIP_RELEASE:-0}" != 1 ]; then
  # A second build type, as packagers build it: no debug information. Every test must pass
  # (a test that relies on a build being slow fails here) and the gdb tests must report SKIPPED.
  echo "== build Release (no -g) and run every test"
  TAPEGRAD_BUILD_DIR="$root/build-release" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release
  (cd "$root/build-release" && ctest --output-on-failure -j "$(nproc)")
fi

if [ "${TAPEGRAD_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== build with ASan + UBSan and run the unit and fuzz tests"
  # -O1 -g1 (line tables, enough for the reports' file:line): the sanitizers' usual level. At RelWithDebInfo
  # (-O2/-O3 -g) this build was the longest step of a cold run; docs/performance.md has both times.
  TAPEGRAD_BUILD_DIR="$root/build-asan" "$root/scripts/build.sh" -DTAPEGRAD_SANITIZE=ON -DTAPEGRAD_BUILD_EXAMPLES=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1"
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     LSAN_OPTIONS="suppressions=$root/tests/lsan.supp" \
     ctest --output-on-failure -j "$(nproc)" -L 'unit|fuzz')
fi
echo "== all tests passed"
