#!/usr/bin/env bash
# Stands in for tapegrad-depth in parallel_test.sh. The first time it is asked for shard $FLAKY_SHARD
# (e.g. 1/4) it starts the real program, kills it with SIGKILL (as a lost machine would) once one of the
# shard's runs has finished, lists the finished runs in $FLAKY_MARK/before.txt and fails. Every other call
# is the real program, $FLAKY_REAL. $FLAKY_MARK is a folder: creating it is the atomic "failed once".
set -u
source "$(dirname "$0")/common.sh"
args=("$@") out="" shard=""
for ((i = 0; i + 1 < $#; ++i)); do
  case "${args[i]}" in
    --out) out="${args[i + 1]}" ;;
    --shard) shard="${args[i + 1]}" ;;
  esac
done
if [ "$shard" != "$FLAKY_SHARD" ] || ! mkdir "$FLAKY_MARK" 2> /dev/null; then exec "$FLAKY_REAL" "$@"; fi

"$FLAKY_REAL" "$@" &
pid=$!
while kill -0 "$pid" 2> /dev/null && [ "$(count_finished "$out")" -lt 1 ]; do sleep 0.05; done
kill -KILL "$pid" 2> /dev/null
wait "$pid"
finished_runs "$(dirname "$out")" > "$FLAKY_MARK/before.txt"
echo "flaky_depth: killed shard $shard after $(count_finished "$out") finished runs"
exit 137
