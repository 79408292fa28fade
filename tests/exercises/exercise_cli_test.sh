#!/usr/bin/env bash
# scripts/exercise.sh end to end: check (a solution passes with exit 0; a planted mistake fails with
# exit 1 and its diagnosis on the last line; --lang zh and TAPEGRAD_LANG=zh; a crash, an endless loop
# and a compile error are reported), list, and --gdb stopping in the learner's function.
#   exercise_cli_test.sh SOURCE_DIR        (TAPEGRAD_BUILD_DIR: the build whose library is used)
set -uo pipefail
src="$1"
ex="$src/scripts/exercise.sh"
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect NAME WANTED_EXIT LAST_LINE_REGEX [OUTPUT_REGEX] -- COMMAND...
expect() {
  local name="$1" want_rc="$2" last_re="$3" out_re="$4"; shift 5
  local out rc
  out=$("$@" 2>&1); rc=$?
  local last; last=$(tail -1 <<<"$out")
  if [[ "$rc" != "$want_rc" ]] || ! [[ "$last" =~ $last_re ]] || { [[ -n "$out_re" ]] && ! grep -qE "$out_re" <<<"$out"; }; then
    echo "FAIL: $name (exit $rc, expected $want_rc; last line: $last)"
    sed 's/^/    /' <<<"$out" | tail -30
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

expect "a solution passes" 0 '^result: pass$' 'checks passed' -- \
  "$ex" check "$src/exercises/solutions/03_layer_norm_backward_solution.cpp"
expect "a planted mistake is diagnosed" 1 '^result: fail diagnosis=mean_term_missing$' 'treated as a constant' -- \
  "$ex" check "$src/tests/exercises/mistakes/03_layer_norm_backward__mean_term_missing.cpp"
expect "--lang zh" 1 '^result: fail diagnosis=eps_outside_sqrt$' '诊断：eps_outside_sqrt' -- \
  "$ex" check "$src/tests/exercises/mistakes/02_layer_norm_forward__eps_outside_sqrt.cpp" --lang zh
expect "TAPEGRAD_LANG=zh" 1 '^result: fail diagnosis=post_pre_swapped$' '写反了' -- \
  env TAPEGRAD_LANG=zh "$ex" check "$src/tests/exercises/mistakes/07_blocks__post_pre_swapped.cpp"
expect "a skeleton, by name" 1 '^result: fail diagnosis=not_implemented$' 'not implemented yet: layer_norm_forward' -- \
  "$ex" check layer_norm_forward
expect "a segfault is reported" 1 '^result: fail diagnosis=crashed$' 'crashed with SIGSEGV' -- \
  "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_segfault.cpp"
expect "an endless loop is stopped" 1 '^result: fail diagnosis=timeout$' 'did not finish within 1 s' -- \
  env TAPEGRAD_EXERCISE_TIMEOUT=1 "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_endless_loop.cpp"
printf '// exercise: layer_norm_forward\n#include "tapegrad/exercise.hpp"\ntapegrad::Array layer_norm_forward(oops\n' \
  > "$scratch/broken.cpp"
expect "a compile error is reported" 1 '^result: fail diagnosis=compile_error$' 'does not compile' -- \
  "$ex" check "$scratch/broken.cpp"
expect "list" 0 'adam_step' '01_residual\.cpp +fail diagnosis=not_implemented +1: the residual' -- \
  sh -c '"$1" list | tee "$2"' sh "$ex" "$scratch/list.txt"
# Its columns line up: every row's result starts at the same column (planted: a fixed width narrower than the
# longest file name fails it).
if [[ $(sed 's/\(fail\|pass\).*//' "$scratch/list.txt" | awk '{ print length($0) }' | sort -u | wc -l) != 1 ]]; then
  echo "FAIL: the columns of list are not aligned:"; sed 's/^/    /' "$scratch/list.txt"
  failures=$((failures + 1))
else
  echo "ok: list's columns line up"
fi

if command -v gdb >/dev/null; then
  expect "--gdb stops in the learner's function" 0 '' 'Breakpoint 1, layer_norm_backward \(' -- \
    env TAPEGRAD_EXERCISE_GDB_BATCH=1 "$ex" check "$src/tests/exercises/mistakes/03_layer_norm_backward__wrong_scale.cpp" --gdb
  # ... with the pretty-printers loaded (planted: the gdb line without add-auto-load-safe-path fails it).
  gdb_out=$(TAPEGRAD_EXERCISE_GDB_BATCH=1 "$ex" check "$src/tests/exercises/mistakes/03_layer_norm_backward__wrong_scale.cpp" --gdb 2>&1)
  if grep -q "auto-loading has been declined" <<<"$gdb_out"; then
    echo "FAIL: --gdb starts gdb without the pretty-printers:"; grep "declined" <<<"$gdb_out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: --gdb loads the pretty-printers"
  fi
else
  echo "skipped: --gdb (no gdb)"
fi

((failures == 0)) && echo "all passed" || { echo "$failures failed"; exit 1; }
