#!/usr/bin/env bash
# Tests of the tapegrad-depth command line on a tiny sweep (seconds each).
#   lab_cli_test.sh TAPEGRAD_DEPTH WORK_DIR CASE
# CASE: determinism | shard_merge | resume | interrupt | bad_args | dump | plots
set -uo pipefail
bin="$1"; work="$2"; case="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# The tiny sweep: 2 placements x 2 depths x 2 warmups = 8 runs.
plotted=(--placements post,rezero --depths 1,3 --lrs 0.01 --warmups 0,5 --widths 4 --steps 12 --batch 8
         --train-size 64 --eval-size 32 --eval-every 4)
tiny=("${plotted[@]}" --no-plots)
csvs=(runs.csv curves.csv init_grads.csv)
same_csvs() {  # same_csvs DIR1 DIR2: byte-identical CSVs
  for f in "${csvs[@]}"; do cmp "$1/$f" "$2/$f" || fail "$1/$f and $2/$f differ"; done
}

case "$case" in
determinism)
  "$bin" "${tiny[@]}" --out a -j1 > a.log || fail "sweep a failed: $(cat a.log)"
  "$bin" "${tiny[@]}" --out b -j1 > b.log || fail "sweep b failed"
  "$bin" "${tiny[@]}" --out c -j3 > c.log || fail "sweep c failed"
  same_csvs a b; same_csvs a c
  [ "$(wc -l < a/runs.csv)" -eq 9 ] || fail "expected 8 run rows in a/runs.csv"
  [ "$(wc -l < a/curves.csv)" -eq $((1 + 8 * 12)) ] || fail "expected 96 curve rows"
  grep -q "Deepest stack that trained" a.log || fail "no summary table on stdout"
  ;;
shard_merge)
  "$bin" "${tiny[@]}" --out full > /dev/null || fail "unsharded sweep failed"
  for i in 0 1 2; do "$bin" "${tiny[@]}" --out "s$i" --shard "$i/3" -j1 > "s$i.log" || fail "shard $i failed"; done
  [ "$(ls s0/runs | wc -l)" -eq 3 ] || fail "shard 0/3 should hold 3 of the 8 runs"
  "$bin" --no-plots merge merged s0 s1 s2 > merge.log || fail "merge failed: $(cat merge.log)"
  same_csvs full merged
  cmp full/summary.txt merged/summary.txt || fail "summaries differ"
  "$bin" --no-plots merge partial s0 s1 > partial.log 2>&1 || fail "merging 2 of 3 shards should still work"
  grep -q "2 runs have no results" partial.log || fail "merge of 2 of 3 shards did not warn about the missing runs"
  "$bin" --placements pre --depths 1 --lrs 0.01 --warmups 0 --widths 4 --steps 3 --batch 8 --train-size 64 \
    --eval-size 32 --no-plots --out other > /dev/null || fail "other sweep failed"
  "$bin" merge bad s0 other > bad.log 2>&1; [ $? -eq 2 ] || fail "merging different sweeps should exit 2"
  grep -q "different sweep" bad.log || fail "no message for different sweeps"
  ;;
resume)
  "$bin" "${tiny[@]}" --out full > /dev/null || fail "full sweep failed"
  "$bin" "${tiny[@]}" --out r > /dev/null || fail "sweep r failed"
  # Simulate an interrupted sweep: 3 finished runs lost, one half-written run folder, stale CSVs gone.
  ls r/runs | sed -n '2p;5p;8p' | while read -r d; do rm -rf "r/runs/$d"; done
  mkdir -p "r/runs/.tmp-post_L3_d4_lr0.01_w0_T12_b8_s0"; rm -f r/*.csv
  "$bin" "${tiny[@]}" --out r --resume > resume.log || fail "resume failed"
  grep -q "3 to do (5 finished before, skipped)" resume.log || fail "resume did not skip the 5 finished runs: $(cat resume.log)"
  [ ! -e "r/runs/.tmp-post_L3_d4_lr0.01_w0_T12_b8_s0" ] || fail "resume left a partial run folder"
  same_csvs full r
  # Resuming with other options is refused.
  "$bin" "${tiny[@]}" --steps 13 --out r --resume > other.log 2>&1; [ $? -eq 2 ] || fail "resume of another sweep should exit 2"
  grep -q "different sweep" other.log || fail "no message for resuming another sweep"
  ;;
interrupt)
  # A real kill: SIGINT after some runs have finished, then --resume.
  big=(--placements post,pre --depths 1,2,3,4 --lrs 0.01 --warmups 0,5 --widths 8 --steps 400 --batch 8
       --train-size 64 --eval-size 32 --eval-every 50 --no-plots -j1)
  "$bin" "${big[@]}" --out full > /dev/null || fail "full sweep failed"
  "$bin" "${big[@]}" --out k > k.log 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    [ "$(ls k/runs 2>/dev/null | grep -vc '^\.tmp-')" -ge 2 ] && break
    sleep 0.05
  done
  kill -INT "$pid"; wait "$pid"; status=$?
  done_runs=$(ls k/runs | grep -vc '^\.tmp-')
  if [ "$status" -eq 0 ]; then
    echo "note: the sweep finished before the signal; resume is then a no-op"
  else
    [ "$status" -eq 130 ] || fail "an interrupted sweep should exit 130, got $status: $(cat k.log)"
    grep -q "rerun with the same options and --resume" k.log || fail "no resume hint after Ctrl-C"
    [ "$done_runs" -lt 16 ] || fail "all runs finished despite the interrupt"
  fi
  "$bin" "${big[@]}" --out k --resume > resume.log || fail "resume failed"
  grep -q "finished before, skipped" resume.log || [ "$status" -eq 0 ] || fail "resume skipped nothing"
  same_csvs full k
  ;;
bad_args)
  expect2() {  # expect2 "message" args...: exit status 2, message on stderr, nothing written
    local msg="$1"; shift
    "$bin" "$@" > out.log 2> err.log; local s=$?
    [ $s -eq 2 ] || fail "'$*' exited $s, expected 2"
    grep -q -- "$msg" err.log || fail "'$*' did not say '$msg': $(cat err.log)"
  }
  expect2 'unknown placement "postnorm"' --placements post,postnorm --out x
  expect2 "depth must be at least 1" --depths 0,2 --out x
  expect2 "learning rate must be a finite number > 0" --lrs -0.01 --out x
  expect2 "learning rate must be a finite number > 0" --lrs 0 --out x
  expect2 "warmup must be >= 0" --warmups -5 --out x
  expect2 "expected i/n" --shard 2/2 --out x
  expect2 "expected i/n" --shard two --out x
  expect2 "batch size must be between 1 and --train-size" --batch 100 --train-size 64 --out x
  expect2 "repeats a value" --depths 2,2 --out x
  expect2 "The following argument was not expected" --no-such-option
  expect2 "Could not convert" --depths two
  [ ! -e x ] || fail "a bad command line must not create the output folder"
  touch afile
  expect2 "cannot create the output folder 'afile/sub'" "${tiny[@]}" --out afile/sub
  mkdir ro && chmod 555 ro
  if [ "$(id -u)" != 0 ]; then expect2 "not writable" "${tiny[@]}" --out ro; fi
  expect2 "--dump records one run" --dump d
  expect2 "not a results folder" merge m nowhere
  "$bin" --help > help.log || fail "--help should exit 0"
  for opt in --placements --depths --lrs --warmups --seeds --widths --steps --batch --train-size --eval-size \
             --eval-every --jobs --resume --shard --dump --no-plots merge; do
    grep -q -- "$opt" help.log || fail "--help does not document $opt"
  done
  ;;
dump)
  "$bin" --dump rec --placements deepnorm --depths 2 --widths 4 --lrs 0.01 --warmups 3 --steps 7 --batch 8 \
    --train-size 64 > dump.log || fail "dump failed: $(cat dump.log)"
  for f in config.json x.npy y.npy batches.npy losses.npy input.weight.npy input.bias.npy \
           blocks.0.ffn.fc1.weight.npy blocks.1.ffn.fc2.bias.npy blocks.1.norm.weight.npy head.weight.npy; do
    [ -s "rec/$f" ] || fail "the record lacks $f"
  done
  [ ! -e rec/final_norm.weight.npy ] || fail "deepnorm has no final norm"
  grep -q '"placement": "deepnorm"' rec/config.json || fail "config.json lacks the placement"
  # batches.npy: int64 (7, 8)
  head -c 80 rec/batches.npy | grep -q "'descr': '<i8'.*'shape': (7, 8)" || fail "batches.npy is not int64 (7, 8)"
  ;;
plots)
  "$bin" "${plotted[@]}" --out p > p.log 2> p.err || fail "sweep with plots failed"
  for f in eval_vs_depth.gp init_grads.gp curves_lr0.01_w0.gp curves_lr0.01_w5.gp summary.txt sweep.json; do
    [ -s "p/$f" ] || fail "missing p/$f"
  done
  if command -v gnuplot > /dev/null; then
    for f in eval_vs_depth.png init_grads.png curves_lr0.01_w0.png; do
      head -c 4 "p/$f" | grep -q PNG || fail "p/$f is not a PNG: $(cat p.err)"
    done
  fi
  # Without gnuplot: a warning, the scripts, no failure.
  PATH=/nonexistent "$bin" "${plotted[@]}" --out q > q.log 2> q.err || fail "sweep without gnuplot failed"
  grep -q "gnuplot not found" q.err || fail "no warning without gnuplot"
  [ -s q/eval_vs_depth.gp ] || fail "scripts not written without gnuplot"
  ;;
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
