#!/usr/bin/env bash
# scripts/sweep-parallel.sh with GNU parallel on this machine's slots.
#   parallel_test.sh TAPEGRAD_DEPTH WORK_DIR REPO_DIR
# 1. A 16-run sweep in 4 shards (-S 2/:): the merged CSVs are byte-identical to an unsharded sweep's.
# 2. Shard 1 is killed (SIGKILL, held_depth.sh) after one of its runs finished: with --retries 1 the
#    script fails and merges nothing; the same command again resumes and gives identical CSVs.
# 3. The same with the default --retries 2: parallel reruns the shard, which resumes; identical CSVs,
#    and no run that had finished was done again.
# Prints "SKIP: ..." (ctest: skipped) when GNU parallel is missing.
set -uo pipefail
bin="$1"; work="$2"; repo="$3"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/common.sh"
command -v parallel > /dev/null || skip "GNU parallel is missing (scripts/deps.sh test installs parallel)"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1

sweep=(--placements post,pre --depths 1,2,3,4 --lrs 0.01 --warmups 0,5 --widths 16 --steps $((1500 / ${TAPEGRAD_STEPS_DIVISOR:-1})) --batch 16 --seeds 0
       --train-size 64 --eval-size 32 --eval-every 500 --no-plots)
"$bin" "${sweep[@]}" --out ref -j 2 > ref.log || fail "the unsharded sweep failed: $(cat ref.log)"
echo "unsharded sweep done ($SECONDS s)"

# --- 1. all shards on this machine, given as parallel's --sshlogin (':' is this machine, no ssh)
TAPEGRAD_DEPTH="$bin" "$repo/scripts/sweep-parallel.sh" -n 4 -S 2/: -o "$work/local" "${sweep[@]}" > local.log 2>&1 \
  || fail "sweep-parallel.sh failed: $(cat local.log)"
same_results ref local
[ "$(tail -n +2 local.shards/joblog | cut -f2 | grep -cx ':')" -eq 4 ] || fail "the job log does not list 4 shards on ':': $(cat local.shards/joblog)"
echo "4 shards with GNU parallel: identical CSVs ($SECONDS s)"

# --- 2. a shard fails and --retries 1 gives it no second chance
flaky=(env TAPEGRAD_DEPTH="$here/held_depth.sh" HOLD_REAL="$bin" HOLD_SHARD=1/4 HOLD_THEN=kill)
"${flaky[@]}" HOLD_MARK="$work/failed-once-a" "$repo/scripts/sweep-parallel.sh" -n 4 --retries 1 -o "$work/once" \
  "${sweep[@]}" > once.log 2>&1 && fail "a failed shard without retries should fail the sweep: $(cat once.log)"
grep -q "1 shards failed" once.log || fail "no message about the failed shard: $(cat once.log)"
[ ! -e once/runs.csv ] || fail "merged although a shard failed"
"${flaky[@]}" HOLD_MARK="$work/failed-once-a" "$repo/scripts/sweep-parallel.sh" -n 4 --retries 1 -o "$work/once" \
  "${sweep[@]}" > once-again.log 2>&1 || fail "running the command again did not finish the sweep: $(cat once-again.log)"
same_results ref once
not_redone failed-once-a/before.txt <(finished_runs "$work/once.shards")
echo "--retries 1: the sweep failed; the same command again resumed it, identical CSVs ($SECONDS s)"

# --- 3. the default --retries 2 reruns the shard, which resumes
"${flaky[@]}" HOLD_MARK="$work/failed-once-b" "$repo/scripts/sweep-parallel.sh" -n 4 -o "$work/retried" \
  "${sweep[@]}" > retried.log 2>&1 || fail "the sweep with a shard that fails once failed: $(cat retried.log)"
[ -s failed-once-b/before.txt ] || fail "shard 1 was never made to fail"
same_results ref retried
not_redone failed-once-b/before.txt <(finished_runs "$work/retried.shards")
grep -q "(shard 1/4 of 16), [0-9] to do ([1-4] finished before, skipped)" retried.log || fail "the retried shard did not resume: $(cat retried.log)"
echo "a shard killed once and rerun by --retries: identical CSVs, no finished run redone ($SECONDS s)"
echo "PASS: parallel"
