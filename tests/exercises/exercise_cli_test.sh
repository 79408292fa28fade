#!/usr/bin/env bash
# scripts/exercise.sh end to end: check (a solution passes with exit 0; a planted mistake fails with
# exit 1 and its diagnosis on the last line; --lang zh and TAPEGRAD_LANG=zh; a crash, an endless loop
# and a compile error are reported), list, and --gdb stopping in the learner's function.
#   exercise_cli_test.sh SOURCE_DIR PLANTED [--quick]
# TAPEGRAD_BUILD_DIR: the build whose library is used; PLANTED: the planted mistakes the build wrote.
# --quick (the Release build's run): the parts that can depend on the library's build (checks, pitfalls,
# the link line, list, gdb), not the script's own logic again (which exercise a file is, its messages in
# Chinese, the report's JSON shapes, ten rounds of parallel checks: two here), which the default build ran.
set -uo pipefail
src="$1"
planted="$2"
quick=0; [[ "${3:-}" == --quick ]] && quick=1
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
expect "--hint 1: what is wrong, no formula" 1 '^result: fail diagnosis=scale_missing$' '^  The 1/√D is missing from dq or dk \(or both\)\.$' -- \
  "$ex" check "$src/tests/exercises/mistakes/09_attention_backward__scale_missing.cpp" --hint 1
# (the text report wraps the hint: --json holds it on one line)
expect "--hint 3: and the line" 1 '^}$' '"hint": "[^"]*Look at line [0-9]+ of [^"]*: g\.dq\(i, d\) \+= dS \* k\(j, d\);' -- \
  "$ex" check "$src/tests/exercises/mistakes/09_attention_backward__scale_missing.cpp" --hint 3 --json
expect "--lang zh" 1 '^result: fail diagnosis=eps_outside_sqrt$' '诊断：eps_outside_sqrt' -- \
  "$ex" check "$planted/02_layer_norm_forward__eps_outside_sqrt.cpp" --lang zh
expect "TAPEGRAD_LANG=zh" 1 '^result: fail diagnosis=post_pre_swapped$' '写反了' -- \
  env TAPEGRAD_LANG=zh "$ex" check "$planted/07_blocks__post_pre_swapped.cpp"
expect "a skeleton, by name" 1 '^result: fail diagnosis=not_implemented$' 'not implemented yet: layer_norm_forward' -- \
  "$ex" check layer_norm_forward
if grep -q '^TAPEGRAD_SANITIZE:BOOL=ON$' "${TAPEGRAD_BUILD_DIR:-$src/build}/CMakeCache.txt" 2>/dev/null; then
  expect "a library built with sanitizers keeps them: --no-sanitize is ignored, in one line" 1 '^result: fail diagnosis=memory_error$' \
    '^\(the library in .* is built with sanitizers \(TAPEGRAD_SANITIZE=ON\), so your file must be too: --no-sanitize ignored\)$' -- \
    "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_segfault.cpp" --no-sanitize
else
  expect "a segfault is reported; --no-sanitize says so in one line" 1 '^result: fail diagnosis=crashed$' '^\(checked without AddressSanitizer/UBSan: --no-sanitize\)$' -- \
    "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_segfault.cpp" --no-sanitize
fi
expect "a segfault under ASan is a memory_error at the learner's line" 1 '^result: fail diagnosis=memory_error$' \
  '^at: .*02_layer_norm_forward_segfault\.cpp:12$' -- \
  "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_segfault.cpp"

# C++ pitfalls named at the learner's line (tests/exercises/pitfalls/: each file says which line).
pit="$src/tests/exercises/pitfalls"
expect "an off-by-one read" 1 '^result: fail diagnosis=memory_error$' '^at: .*02_layer_norm_forward_off_by_one\.cpp:14$' -- \
  "$ex" check "$pit/02_layer_norm_forward_off_by_one.cpp"
expect "a lazy keep_dims reduction" 1 '^result: fail diagnosis=xtensor_lazy_expression$' \
  '^at: .*02_layer_norm_forward_lazy_keep_dims\.cpp:11$' -- "$ex" check "$pit/02_layer_norm_forward_lazy_keep_dims.cpp"
expect "a lazy auto" 1 '^result: fail diagnosis=xtensor_lazy_expression$' '^at: .*02_layer_norm_forward_lazy_auto\.cpp:12$' -- \
  "$ex" check "$pit/02_layer_norm_forward_lazy_auto.cpp"
expect "an uninitialised accumulator" 1 '^result: fail diagnosis=uninitialized_variable$' \
  '^at: .*02_layer_norm_forward_uninitialized\.cpp:15$' -- "$ex" check "$pit/02_layer_norm_forward_uninitialized.cpp"
expect "undefined behaviour" 1 '^result: fail diagnosis=undefined_behaviour$' \
  '^at: .*02_layer_norm_forward_int_overflow\.cpp:12$' -- "$ex" check "$pit/02_layer_norm_forward_int_overflow.cpp"
# exercises/README.md says the grader catches the keep_dims pitfall: its own example, as written there.
awk '/<!-- keep_dims example -->/ {f = 1} f && /^```$/ {exit} f && p {print} f && /^```cpp/ {p = 1}' \
  "$src/exercises/README.md" > "$scratch/02_readme_keep_dims.cpp"
expect "the README's keep_dims example is caught, the hint gives both ways out" 1 \
  '^result: fail diagnosis=xtensor_lazy_expression$' 'evaluation_strategy::immediate' -- \
  "$ex" check "$scratch/02_readme_keep_dims.cpp"
# Other warnings of the learner's file are listed under the report.
{ echo '// exercise: layer_norm_backward'; cat "$src/exercises/solutions/03_layer_norm_backward_solution.cpp"
  echo 'static int unused_helper(int a, int b) { return a; }'; } > "$scratch/warned_layer_norm_backward.cpp"
expect "warnings are listed" 0 '^result: pass$' "warned_layer_norm_backward\.cpp:[0-9]+: .*unused_helper.* defined but not used" -- \
  "$ex" check "$scratch/warned_layer_norm_backward.cpp"
# ... but not the parameters the exercise's signature gives and the learner need not use (b here).
if "$ex" check "$scratch/warned_layer_norm_backward.cpp" 2>&1 | grep -q "unused parameter"; then
  echo "FAIL: an unused parameter is listed as a warning (the signatures are the exercise's)"; failures=$((failures + 1))
else
  echo "ok: unused parameters are not listed"
fi

# The link line is the library's: xt::linalg::dot (OpenBLAS) links and passes.
expect "an FFN with xt::linalg::dot" 0 '^result: pass$' '' -- \
  "$ex" check "$src/tests/exercises/alternatives/06_ffn_linalg_dot.cpp"

if ((!quick)); then
# Which exercise a file is.
cp "$src/exercises/solutions/02_layer_norm_forward_solution.cpp" "$scratch/02_mine.cpp"
expect "02_mine.cpp is exercise 2" 0 '^result: pass$' 'exercise layer_norm_forward' -- "$ex" check "$scratch/02_mine.cpp"
cp "$src/exercises/02_layer_norm_forward.cpp" "$scratch/mine.cpp"
expect "a skeleton's header // Exercise 2:" 1 '^result: fail diagnosis=not_implemented$' 'exercise layer_norm_forward' -- \
  "$ex" check "$scratch/mine.cpp"
# (a planted blocks file includes the LayerNorm solutions as "solutions/...": found through exercises/)
cp "$planted/07_blocks__post_pre_swapped.cpp" "$scratch/07_blocks_residual_missing.cpp"
expect "07_blocks_residual_missing.cpp is blocks" 1 '^result: fail diagnosis=post_pre_swapped$' 'exercise blocks' -- \
  "$ex" check "$scratch/07_blocks_residual_missing.cpp"
grep -v '^// exercise:' "$scratch/07_blocks_residual_missing.cpp" > "$scratch/blocks_residual_missing.cpp"
expect "blocks_residual_missing.cpp: the earliest whole word" 1 '^result: fail diagnosis=post_pre_swapped$' '' -- \
  "$ex" check "$scratch/blocks_residual_missing.cpp"
mkdir -p "$scratch/elsewhere" && cp "$src/exercises/07_blocks.cpp" "$scratch/elsewhere/my_blocks.cpp"
expect "the blocks skeleton copied out of exercises/ compiles" 1 '^result: fail diagnosis=not_implemented$' '' -- \
  "$ex" check "$scratch/elsewhere/my_blocks.cpp"

# The script's own lines in Chinese.
expect "zh: the script's messages" 2 '没有练习' '' -- "$ex" check no_such_exercise --lang zh
printf '#include "tapegrad_grader/exercise.hpp"\ntapegrad::Array layer_norm_forward(oops\n' > "$scratch/02_broken.cpp"
expect "zh: the framing of a compile error" 1 '^result: fail diagnosis=compile_error$' '你的文件无法编译' -- \
  env TAPEGRAD_LANG=zh "$ex" check "$scratch/02_broken.cpp"

# The report as data: --json and Gradescope's results.json, their shapes.
json_shape() {  # json_shape KIND FILE
  python3 - "$1" "$2" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
def need(obj, key, types):
    assert key in obj, "missing %s" % key
    assert isinstance(obj[key], types), "%s: %r" % (key, type(obj[key]))
if kind == "json":
    for k, t in [("exercise", str), ("passed", bool), ("checks", list), ("diagnosis", str), ("hint", str),
                 ("location", str), ("warnings", list), ("checks_passed", int), ("checks_total", int),
                 ("first_failing_case", int), ("result", str)]:
        need(d, k, t)
    assert d["checks"], "no checks"
    for c in d["checks"]:
        for k, t in [("case", str), ("case_index", int), ("output", str), ("function", str), ("passed", bool), ("detail", str)]:
            need(c, k, t)
    assert d["diagnosis"] == "memory_error" and d["location"].endswith("02_layer_norm_forward_off_by_one.cpp:14"), d["location"]
    assert any(not c["passed"] and "heap-buffer-overflow" in c["detail"] for c in d["checks"])
else:
    need(d, "score", (int, float)); need(d, "output", str); need(d, "tests", list)
    names = [t["name"] for t in d["tests"]]
    assert names == ["softmax_backward: softmax_backward"], names
    for t in d["tests"]:
        for k, ty in [("name", str), ("score", (int, float)), ("max_score", (int, float)), ("status", str), ("output", str)]:
            need(t, k, ty)
        assert t["status"] in ("passed", "failed")
    assert d["score"] == 0 and "diagnosis: sum_term_missing" in d["tests"][0]["output"], d
print("shape ok")
PY
}
"$ex" check "$pit/02_layer_norm_forward_off_by_one.cpp" --json > "$scratch/report.json"
expect "--json has the report's shape" 0 '^shape ok$' '' -- json_shape json "$scratch/report.json"
"$ex" check "$planted/08_softmax_backward__sum_term_missing.cpp" --format gradescope > "$scratch/results.json"
expect "--format gradescope has results.json's shape" 0 '^shape ok$' '' -- json_shape gradescope "$scratch/results.json"
fi  # !quick

# Two checks of one exercise at once (a correct and a wrong file), ten times (--quick: twice): each its own result.
parallel_ok=1
rounds=10; ((quick)) && rounds=2
for ((round = 1; round <= rounds; round++)); do
  "$ex" check "$src/exercises/solutions/08_softmax_backward_solution.cpp" > "$scratch/p_right.txt" 2>&1 &
  a=$!
  "$ex" check "$planted/08_softmax_backward__sum_term_missing.cpp" > "$scratch/p_wrong.txt" 2>&1 &
  b=$!
  wait "$a"; ra=$?; wait "$b"; rb=$?
  if [[ $ra != 0 || $rb != 1 ]] || [[ "$(tail -1 "$scratch/p_right.txt")" != "result: pass" ]] ||
     [[ "$(tail -1 "$scratch/p_wrong.txt")" != "result: fail diagnosis=sum_term_missing" ]]; then
    echo "FAIL: parallel checks, round $round: $(tail -1 "$scratch/p_right.txt") / $(tail -1 "$scratch/p_wrong.txt")"
    parallel_ok=0; failures=$((failures + 1)); break
  fi
done
((parallel_ok)) && echo "ok: two checks of one exercise in parallel, $rounds times"
expect "an endless loop is stopped" 1 '^result: fail diagnosis=timeout$' 'did not finish within 1 s' -- \
  env TAPEGRAD_EXERCISE_TIMEOUT=1 "$ex" check "$src/tests/exercises/faults/02_layer_norm_forward_endless_loop.cpp"
printf '// exercise: layer_norm_forward\n#include "tapegrad_grader/exercise.hpp"\ntapegrad::Array layer_norm_forward(oops\n' \
  > "$scratch/broken.cpp"
expect "a compile error is reported" 1 '^result: fail diagnosis=compile_error$' 'does not compile' -- \
  "$ex" check "$scratch/broken.cpp"
# list reads exercises/table.tsv and compiles nothing (it used to check every skeleton: minutes). Its last line is
# the table's last exercise.
touch "$scratch/list_start"
# the last line is the table's last exercise (the list grows with the table)
last_exercise=$(awk -F'\t' '/^[0-9]/ {name = $2} END {print name}' "$src/exercises/table.tsv")
expect "list" 0 "_${last_exercise}\\.cpp " '01_residual\.cpp +1\. the residual' -- \
  sh -c '"$1" list | tee "$2"' sh "$ex" "$scratch/list.txt"
if [[ $(find "${TAPEGRAD_BUILD_DIR:-$src/build}/exercise_checks" -newer "$scratch/list_start" -name check 2>/dev/null | wc -l) != 0 ]]; then
  echo "FAIL: list compiled a check program"; failures=$((failures + 1))
fi
# Its columns line up: every row's title starts at the same column (planted: a fixed width narrower than the
# longest file name fails it).
if [[ $(sed 's/ [0-9]*\. .*//' "$scratch/list.txt" | awk '{ print length($0) }' | sort -u | wc -l) != 1 ]]; then
  echo "FAIL: the columns of list are not aligned:"; sed 's/^/    /' "$scratch/list.txt"
  failures=$((failures + 1))
else
  echo "ok: list's columns line up"
fi

if command -v gdb >/dev/null; then
  expect "--gdb stops in the learner's function" 0 '' 'Breakpoint 1, layer_norm_backward \(' -- \
    env TAPEGRAD_EXERCISE_GDB_BATCH=1 "$ex" check "$planted/03_layer_norm_backward__wrong_scale.cpp" --gdb
  # ... with the pretty-printers loaded (planted: the gdb line without add-auto-load-safe-path fails it).
  gdb_out=$(TAPEGRAD_EXERCISE_GDB_BATCH=1 "$ex" check "$planted/03_layer_norm_backward__wrong_scale.cpp" --gdb 2>&1)
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
