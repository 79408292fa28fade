#!/usr/bin/env bash
# The "write it yourself" (手撕) exercises: check your own forward and backward passes.
#
#   scripts/exercise.sh list [--lang zh]                       the exercises: each one's file and title
#   scripts/exercise.sh check <name|file.cpp> [--lang zh]      one exercise: the report, exit 0 (pass) or 1
#             [--no-sanitize] [--json | --format gradescope] [--hint 1|2|3]
#   scripts/exercise.sh check <name|file.cpp> --gdb            gdb, stopped in your function on the first failing case
#
# <name> is an exercise of exercises/ (layer_norm_backward, 03, 03_layer_norm_backward); a file is any
# .cpp holding that exercise's functions. Which exercise: the file name's NN_ prefix (02_mine.cpp), else a
# line `// exercise: layer_norm_backward` or the skeleton's header `// Exercise 3: ...`, else the name as a
# whole word of the file name (my_layer_norm_backward.cpp). The file is compiled (-O0 -g, under
# AddressSanitizer and UndefinedBehaviorSanitizer: --no-sanitize, or a compiler without them, goes
# without) against the grader and the library of build/ ($TAPEGRAD_BUILD_DIR; built if missing), linked as the
# library's CMake package says (build/tapegrad_link.txt: OpenBLAS for xt::linalg::dot), each file checked
# in its own folder; a second compile (-O1 -Wall -Wextra) collects the compiler's warnings for your file.
# tapegrad::exercise's grader runs it: each call of your code in a child process, so a crash, a memory
# error (at your line), an endless loop (TAPEGRAD_EXERCISE_TIMEOUT seconds, default 10) or an exception
# is reported, never fatal. The report's last line is `result: pass` or `result: fail diagnosis=<id>`.
# --lang zh (or TAPEGRAD_LANG=zh): in Chinese. --json, --format gradescope: the report as data.
# --hint 1|2|3: the hint in levels (default: the whole hint, as always): 1 names what is wrong, 2 adds the
# formula, 3 adds the line of your file where the first wrong output is computed.
set -uo pipefail
lang="${TAPEGRAD_LANG:-en}"; [[ "$lang" == zh* ]] && lang=zh || lang=en
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TAPEGRAD_BUILD_DIR:-$root/build}"
# exercises/table.tsv, the one list of the exercises: the names in order, each one's learner's functions
# (gdb's breakpoints) and parts (the grader's call with those functions).
table="$root/exercises/table.tsv"
mapfile -t names < <(awk -F'\t' '/^[0-9]/ {print $2}' "$table")

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

column_of() { awk -F'\t' -v name="$1" -v col="$2" '/^[0-9]/ && $2 == name {print $col}' "$table"; }
functions_of() { column_of "$1" 3; }
check_call() { column_of "$1" 4; }

# The exercise a name or a file is: "03", "03_layer_norm_backward", "layer_norm_backward", a path.
# In order: the NN_ prefix; a file's marker line (`// exercise: <name>`, or the skeletons' header
# `// Exercise N:`); the name as a whole word (bounded by the ends or `_`), the earliest in the name
# winning (blocks_residual_missing is blocks, not residual).
exercise_by_number() {  # by the table's number column (the numbers need not be contiguous)
  awk -F'\t' -v n="$((10#$1))" '/^[0-9]/ && $1 == n {print $2}' "$table" | grep .
}
exercise_of() {
  local arg="$1" base n marker best="" best_at=100000 at rest
  base=$(basename "$arg" .cpp)
  if [[ "$base" =~ ^([0-9]+)(_|$) ]]; then exercise_by_number "${BASH_REMATCH[1]}"; return; fi
  if [[ -f "$arg" ]]; then
    marker=$(sed -n 's#^// *exercise: *\([a-z_]*\).*#\1#p' "$arg" | head -1)
    for n in "${names[@]}"; do [[ "$marker" == "$n" ]] && { echo "$n"; return; }; done
    marker=$(sed -n 's#^// *Exercise \([0-9][0-9]*\):.*#\1#p' "$arg" | head -1)
    [[ -n "$marker" ]] && { exercise_by_number "$marker"; return; }
  fi
  for n in "${names[@]}"; do
    rest="_${base}_"
    [[ "$rest" == *"_${n}_"* ]] || continue
    rest="${rest%%_${n}_*}"
    at=${#rest}
    if ((at < best_at || (at == best_at && ${#n} > ${#best}))); then best="$n"; best_at=$at; fi
  done
  [[ -n "$best" ]] && echo "$best"
}

file_of() {  # the file to compile: the argument if it is a file, else exercises/NN_<name>.cpp
  if [[ -f "$1" ]]; then (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); return; fi
  ls "$root"/exercises/[0-9][0-9]_"$2".cpp 2>/dev/null | head -1
}

# Messages of this script in the learner's language ($lang: en or zh).
say() {  # say KEY [ARGS...]
  local key="$1"; shift
  if [[ "$lang" == zh ]]; then
    case "$key" in
      no_exercise) printf '没有练习 "%s"：应为 %s 之一，或以练习命名的 .cpp 文件（或文件里有一行 "// exercise: <名字>"）\n' "$@" ;;
      no_file) printf '练习 %s 没有对应的文件\n' "$@" ;;
      building) printf '正在 %s 中构建库（只需一次）……\n' "$@" ;;
      no_compile) printf '你的文件无法编译（%s）：\n' "$@" ;;
      no_sanitize) printf '（这次检查没有 AddressSanitizer/UBSan：%s）\n' "$@" ;;
      no_runtime) printf '编译器无法链接 -fsanitize=address,undefined' ;;
      asked) printf '用了 --no-sanitize' ;;
      sanitized_library) printf '（%s 中的库本身是用 sanitizer 构建的（TAPEGRAD_SANITIZE=ON），你的文件也必须如此：忽略 --no-sanitize）\n' "$@" ;;
      stopped) printf '检查程序以状态 %s 结束\n' "$@" ;;
      all_pass) printf '所有用例都通过了：gdb 没有可以停下的地方\n' ;;
      gdb) printf 'gdb：在本进程中运行用例 %s，停在 %s（continue：运行到用例结束）\n' "$@" ;;
    esac
  else
    case "$key" in
      no_exercise) printf "no exercise '%s': one of %s, or a .cpp file named after one (or with a line '// exercise: <name>' in it)\n" "$@" ;;
      no_file) printf 'no file for exercise %s\n' "$@" ;;
      building) printf 'building the library in %s (once) ...\n' "$@" ;;
      no_compile) printf 'your file does not compile (%s):\n' "$@" ;;
      no_sanitize) printf '(checked without AddressSanitizer/UBSan: %s)\n' "$@" ;;
      no_runtime) printf 'this compiler cannot link -fsanitize=address,undefined' ;;
      asked) printf -- '--no-sanitize' ;;
      sanitized_library) printf '(the library in %s is built with sanitizers (TAPEGRAD_SANITIZE=ON), so your file must be too: --no-sanitize ignored)\n' "$@" ;;
      stopped) printf 'the check program stopped with status %s\n' "$@" ;;
      all_pass) printf 'every case passes: nothing for gdb to stop on\n' ;;
      gdb) printf 'gdb: case %s in this process, stopped in %s (continue: to the end of the case)\n' "$@" ;;
    esac
  fi
}

ensure_library() {
  [[ -f "$build/libtapegrad_grader.so" && -f "$build/tapegrad_link.txt" ]] && return 0
  say building "$build" >&2
  if [[ -f "$build/CMakeCache.txt" ]]; then
    cmake "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" --target tapegrad_grader >&2 || return 1
  else
    TAPEGRAD_BUILD_DIR="$build" TAPEGRAD_BUILD_TARGET=tapegrad_grader "$root/scripts/build.sh" >&2 || return 1
  fi
}

# Whether this compiler links -fsanitize=address,undefined (the runtime may be missing): once per build.
sanitizers_work() {
  local checks="$build/exercise_checks" probe
  [[ -f "$checks/sanitizers.ok" ]] && return 0
  [[ -f "$checks/sanitizers.missing" ]] && return 1
  mkdir -p "$checks"
  probe=$(mktemp -d "$checks/probe.XXXXXX")
  echo 'int main() { return 0; }' > "$probe/p.cpp"
  if "${cxx[@]}" -fsanitize=address,undefined "$probe/p.cpp" -o "$probe/p" 2>/dev/null && "$probe/p"; then
    touch "$checks/sanitizers.ok"; rm -rf "$probe"; return 0
  fi
  touch "$checks/sanitizers.missing"; rm -rf "$probe"; return 1
}

# Compiles the learner's file with the exercise's driver into $dir/check; the warnings of a second
# compile (-O1 -Wall -Wextra, beside the first: GCC sees uninitialised variables only when optimizing)
# into $dir/warnings.log.
compile() {
  local exercise="$1" file="$2" sanitize="$3"
  local san_flags=() defaults=""
  if ((sanitize)); then
    # -fno-sanitize-recover: UBSan stops at the first error, as ASan does (the report names one line).
    # -ftrivial-auto-var-init=pattern: an uninitialised variable is always wrong, never a lucky 0.
    san_flags=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
               -ftrivial-auto-var-init=pattern)
    defaults='extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }'
  fi
  cat > "$dir/main.cpp" <<EOF
// Generated by scripts/exercise.sh: your file, then the grader's command-line driver.
#include "$file"
#include "tapegrad_grader/exercise.hpp"
$defaults
int main(int argc, char** argv) {
  using namespace tapegrad::exercise;
  return main_with(argc, argv, [](const Options& o) { return $(check_call "$exercise"); });
}
EOF
  # The library's and the grader's headers, and exercises/ (the blocks skeleton's #include
  # "02_layer_norm_forward.cpp" still finds a file once copied out of exercises/; a file beside it is found first).
  local includes=(-I"$root/include" -I"$root/exercises/grader/include" -iquote "$root/exercises")
  local link=()
  mapfile -t link < "$build/tapegrad_link.txt"
  # -Wno-unused-parameter: the exercise fixes the signatures (a backward gets b2 it does not need).
  "${cxx[@]}" -std=c++17 -O1 -Wall -Wextra -Wno-unused-parameter "${includes[@]}" -c "$dir/main.cpp" \
    -o "$dir/warnings.o" 2> "$dir/warnings.log" &
  local warnings_pid=$!
  "${cxx[@]}" -std=c++17 -O0 -g "${san_flags[@]}" "${includes[@]}" "$dir/main.cpp" -o "$dir/check" \
       "${link[@]}" -Wl,-rpath,"$build" 2> "$dir/compile.log"
  local rc=$?
  wait "$warnings_pid"
  return $rc
}

check() {
  local arg="$1"; shift
  local lang_args=() format_args=() hint_args=() gdb=0 sanitize=1
  while (($#)); do
    case "$1" in
      --lang) lang_args=(--lang "$2"); [[ "$2" == zh* ]] && lang=zh || lang=en; shift 2 ;;
      --gdb) gdb=1; shift ;;
      --no-sanitize) sanitize=0; shift ;;
      --json) format_args=(--format json); shift ;;
      --format) format_args=(--format "$2"); shift 2 ;;
      --hint) hint_args=(--hint "$2"); shift 2 ;;
      *) usage ;;
    esac
  done
  local exercise file prog rc
  exercise=$(exercise_of "$arg")
  [[ -z "$exercise" ]] && { say no_exercise "$arg" "${names[*]}" >&2; exit 2; }
  file=$(file_of "$arg" "$exercise")
  [[ -z "$file" ]] && { say no_file "$exercise" >&2; exit 2; }
  ensure_library || { echo "result: fail diagnosis=library_not_built"; exit 1; }
  cxx=("${CXX:-c++}")
  command -v ccache >/dev/null && cxx=(ccache "${cxx[@]}")
  if ((!sanitize)) && grep -q '^TAPEGRAD_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
    # A program without the sanitizers' runtime cannot load a library built with them.
    say sanitized_library "$build" >&2
    sanitize=1
  fi
  if ((!sanitize)); then
    say no_sanitize "$(say asked)" >&2
  elif ! sanitizers_work; then
    say no_sanitize "$(say no_runtime)" >&2
    sanitize=0
  fi
  # One folder per file checked, held under a lock while it is used: two checks of one file wait for
  # each other; checks of different files (two terminals, a notebook, `list`) never share a main.cpp or
  # a program.
  local key
  key=$(printf '%s' "$file" | cksum | cut -d' ' -f1)
  dir="$build/exercise_checks/$exercise-$key"
  mkdir -p "$dir"
  exec 9> "$dir/lock"
  flock 9
  if ! compile "$exercise" "$file" "$sanitize"; then
    say no_compile "$file"
    sed 's/^/  /' "$dir/compile.log" | head -40
    echo "result: fail diagnosis=compile_error"
    exit 1
  fi
  prog="$dir/check"
  export TAPEGRAD_EXERCISE_SOURCE="$file"  # a sanitizer's frames are matched against it
  if ((gdb)); then
    local line case_index function breaks=()
    line=$(OPENBLAS_NUM_THREADS=1 "$prog" "${lang_args[@]}" --format machine | tail -1)
    case_index=$(sed -n 's/.*first_failing_case=\([0-9-]*\).*/\1/p' <<<"$line")
    if [[ -z "$case_index" || "$case_index" == -1 ]]; then
      OPENBLAS_NUM_THREADS=1 "$prog" "${lang_args[@]}"
      say all_pass
      exit 0
    fi
    function=$(sed -n 's/.*first_failing_function=\([a-z_]*\).*/\1/p' <<<"$line")
    [[ -z "$function" ]] && function=$(functions_of "$exercise")
    for f in $function; do breaks+=(-ex "break -qualified $f"); done
    say gdb "$case_index" "$function" >&2
    local batch=()
    [[ "${TAPEGRAD_EXERCISE_GDB_BATCH:-}" == 1 ]] && batch=(-batch -ex bt)
    # A sanitizer's report stops gdb where the error is (an abort, not the process's exit).
    export ASAN_OPTIONS="abort_on_error=1:detect_leaks=0"
    # shellcheck disable=SC2068
    # The printers ride in libtapegrad.so (.debug_gdb_scripts): gdb runs them only from a safe path.
    exec gdb -q -iex "add-auto-load-safe-path $root" -iex "add-auto-load-safe-path $build" "${breaks[@]}" -ex run ${batch[@]+"${batch[@]}"} --args "$prog" --case "$case_index" --in-process "${lang_args[@]}"
  fi
  OPENBLAS_NUM_THREADS=1 timeout 900 "$prog" "${lang_args[@]}" "${format_args[@]}" "${hint_args[@]}" \
    --warnings "$dir/warnings.log" --source "$file"
  rc=$?
  if ((rc > 1)); then  # the program itself died: a bug in the grader, or in code that runs before main
    say stopped "$rc"
    echo "result: fail diagnosis=crashed"
    exit 1
  fi
  exit "$rc"
}

# The exercises as exercises/table.tsv lists them: the file and the title. Nothing is compiled (checking
# each one is `check`'s job, a file at a time).
list() {
  local lang="" number name functions parts notebook en zh files=() titles=()
  [[ "${1:-}" == --lang ]] && lang="$2"
  [[ -z "$lang" ]] && lang="${TAPEGRAD_LANG:-en}"
  while IFS=$'\t' read -r number name functions parts notebook en zh; do
    files+=("exercises/$(printf '%02d' "$number")_$name.cpp")
    if [[ "$lang" == zh* ]]; then titles+=("$number. $zh"); else titles+=("$number. $en"); fi
  done < <(grep '^[0-9]' "$table")
  local i wf=0
  for i in "${!files[@]}"; do ((${#files[i]} > wf)) && wf=${#files[i]}; done
  for i in "${!files[@]}"; do printf '  %-*s  %s\n' "$wf" "${files[i]}" "${titles[i]}"; done
}

case "${1:-}" in
  check) shift; (($#)) || usage; check "$@" ;;
  list) shift; list "$@" ;;
  *) usage ;;
esac
