#!/usr/bin/env bash
# Stands in for tapegrad-depth in the cluster tests. The first time it is asked for shard $HOLD_SHARD
# (e.g. 1/4) it runs the real program ($HOLD_REAL) with the lab's hold point set
# (TAPEGRAD_LAB_HOLD_AFTER_RUNS=1:$HOLD_MARK/held): after its first saved run the program writes that file
# and starts no further run. So "a shard with some, not all, of its runs finished" is a state the test
# waits for, not a moment it hopes to hit with a sleep (a Release build once finished all 4 runs first).
#   HOLD_THEN=wait  the program waits there until a signal stops it (the test requeues or cancels the job);
#   HOLD_THEN=kill  this script kills it with SIGKILL (as a lost machine would), lists the finished runs in
#                   $HOLD_MARK/before.txt and fails with 137.
# Every other call is the real program. $HOLD_MARK is a folder: creating it is the atomic "held once".
set -u
source "$(dirname "$0")/common.sh"
args=("$@") out="" shard=""
for ((i = 0; i + 1 < $#; ++i)); do
  case "${args[i]}" in
    --out) out="${args[i + 1]}" ;;
    --shard) shard="${args[i + 1]}" ;;
  esac
done
if [ "$shard" != "$HOLD_SHARD" ] || ! mkdir "$HOLD_MARK" 2> /dev/null; then exec "$HOLD_REAL" "$@"; fi
export TAPEGRAD_LAB_HOLD_AFTER_RUNS="1:$HOLD_MARK/held"
[ "${HOLD_THEN:-wait}" = wait ] && exec "$HOLD_REAL" "$@"

"$HOLD_REAL" "$@" &
pid=$!
while kill -0 "$pid" 2> /dev/null && [ ! -e "$HOLD_MARK/held" ]; do sleep 0.05; done
kill -KILL "$pid" 2> /dev/null
wait "$pid"
finished_runs "$(dirname "$out")" > "$HOLD_MARK/before.txt"
echo "held_depth: killed shard $shard after $(count_finished "$out") finished runs"
exit 137
