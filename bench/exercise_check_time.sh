#!/usr/bin/env bash
# The exercise check's time, whole and by part, side by side (farm-bench pairs the runs: A B A B ...).
#   bench/exercise_check_time.sh OLD_COMMIT [RUNS]        (TAPEGRAD_BUILD_DIR: the build, default build/)
# Whole: scripts/exercise.sh check of a solution, this tree's script against OLD_COMMIT's (its own scripts/,
# include/ and exercises/, from git archive), ccache off (a learner's edited file is a cache miss). The old
# check runs on this build's library, or on $TAPEGRAD_OLD_BUILD_DIR: a build of OLD_COMMIT, needed when the
# grader's library or headers moved between the two (as at 1abda11: exercises/grader/). Parts: the -O0 compile with and
# without the sanitizers, the -O1 -Wall -Wextra warnings compile (run beside the first), and the check
# program's run with and without them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TAPEGRAD_BUILD_DIR:-$root/build}"
old="$1"; runs="${2:-3}"
file="$root/exercises/solutions/03_layer_norm_backward_solution.cpp"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old"
git -C "$root" archive "$old" scripts include exercises | tar -x -C "$work/old"
old_build="${TAPEGRAD_OLD_BUILD_DIR:-$build}"
export TAPEGRAD_BUILD_DIR="$build" OPENBLAS_NUM_THREADS=1 CCACHE_DISABLE=1
echo "== whole check: new (A) vs $old (B)"
farm-bench -n "$runs" --timeout 1800 \
  --vs "env TAPEGRAD_BUILD_DIR=$old_build $work/old/scripts/exercise.sh check $work/old/${file#"$root"/}" -- \
  "$root/scripts/exercise.sh" check "$file"
"$root/scripts/exercise.sh" check "$file" > /dev/null  # leaves the generated main.cpp
main=$(ls -t "$build"/exercise_checks/layer_norm_backward-*/main.cpp | head -1)
mapfile -t link < "$build/tapegrad_link.txt"
cc=(c++ -std=c++17 -I"$root/include" -I"$root/exercises/grader/include" -iquote "$root/exercises")
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -ftrivial-auto-var-init=pattern)
echo "== compile -O0 -g: with the sanitizers (A) vs without (B)"
farm-bench -n "$runs" --timeout 1800 --vs "${cc[*]} -O0 -g $main -o $work/plain ${link[*]} -Wl,-rpath,$build" -- \
  "${cc[@]}" -O0 -g "${san[@]}" "$main" -o "$work/san" "${link[@]}" -Wl,-rpath,"$build"
echo "== the warnings compile -O1 -Wall -Wextra (A) vs the plain -O0 compile (B)"
farm-bench -n "$runs" --timeout 1800 --vs "${cc[*]} -O0 -g $main -o $work/plain ${link[*]} -Wl,-rpath,$build" -- \
  "${cc[@]}" -O1 -Wall -Wextra -Wno-unused-parameter -c "$main" -o "$work/w.o"
echo "== the check program's run: with the sanitizers (A) vs without (B)"
farm-bench -n "$runs" --timeout 1800 --vs "$work/plain" -- "$work/san"
