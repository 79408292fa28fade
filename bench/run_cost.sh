#!/bin/sh
# What a lab run costs besides its steps, and the page faults of a step:
#
#   bench/run_cost.sh BUILD [depth] [d] [rounds]      (default: L 8, d 64, 3 rounds)
#
# Runs tapegrad-depth --arch transformer --placements pre --depths L --widths d --lrs 0.001
# --warmups 0 (4 heads, seq 16, batch 64: issue 29's run) for 1, 21 and 121 steps, whole
# processes under `perf stat -e page-faults`, in rounds, and keeps each one's fastest round:
#   per step    = (t(121) − t(21)) / 100, with --eval-every 1000000 (both runs evaluate at step 0
#                 and at the end only, so the difference is 100 training steps);
#   fixed cost  = t(1) − per step: process start, data, init, the evaluations at steps 0 and 1,
#                 the init diagnostics, the final loss over the training set, the results files.
# Time is CPU time (perf's task-clock). Page faults per step likewise from the fault counts, with
# glibc's default malloc settings (the lab's).
set -eu
build=$1
depth=${2:-8}
d=${3:-64}
rounds=${4:-3}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
work=$(mktemp -d /tmp/tapegrad-run-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
run() {  # steps -> "cpu_seconds page_faults"
  rm -rf "$work/out"
  perf stat -x, -e page-faults,task-clock -o "$work/stat" "$build/lab/tapegrad-depth" --arch transformer --placements pre \
    --depths "$depth" --widths "$d" --lrs 0.001 --warmups 0 --steps "$1" --eval-every 1000000 --jobs 1 --no-plots --out "$work/out" \
    >/dev/null 2>&1
  faults=$(grep page-faults "$work/stat" | cut -d, -f1)
  cpu=$(awk -F, '/task-clock/ {print $1 / 1000}' "$work/stat")
  echo "$cpu $faults"
}
best() { sort -n | head -1; }
for steps in 1 21 121; do
  for i in $(seq "$rounds"); do run "$steps"; done | best >"$work/best_$steps"
done
read -r t1 f1 <"$work/best_1"
read -r t21 f21 <"$work/best_21"
read -r t121 f121 <"$work/best_121"
awk -v t1="$t1" -v t21="$t21" -v t121="$t121" -v f1="$f1" -v f21="$f21" -v f121="$f121" -v L="$depth" -v d="$d" 'BEGIN {
  step = (t121 - t21) / 100
  printf "L %d d %d: 1-step run %.2f s, 21 steps %.2f s, 121 steps %.2f s (CPU, fastest of the rounds)\n", L, d, t1, t21, t121
  printf "per step %.1f ms, fixed cost of a run %.2f s\n", step * 1e3, t1 - step
  printf "page faults: 1-step run %d, per step %.0f\n", f1, (f121 - f21) / 100 }'
