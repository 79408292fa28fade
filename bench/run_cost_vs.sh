#!/bin/sh
# Two builds' lab runs side by side: a 1-step run at L 8 d 64 (issue 29's size: what a run costs
# besides its steps) and a subset of --preset transformer, in alternating rounds:
#
#   bench/run_cost_vs.sh OLD_BUILD NEW_BUILD [rounds]      (default 3 rounds)
#
# The 1-step run is bench/run_cost.sh's (tapegrad-depth --arch transformer --placements pre --depths 8
# --widths 64 --lrs 0.001 --warmups 0 --steps 1); the preset subset is `--preset transformer
# --placements pre --lrs 1e-3 --warmups 0 --seeds 0` (every depth once: 2, 6, 12, 24; 200 steps each).
# Each is a whole process under `perf stat -e page-faults,task-clock` (CPU time), --jobs 1, with the
# lab's own malloc settings. Prints each side's median and the median and range of the per-round
# ratios new/old.
set -eu
old=$1
new=$2
rounds=${3:-3}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
work=$(mktemp -d /tmp/tapegrad-run-cost-vs.XXXXXX)
trap 'rm -rf "$work"' EXIT
run() {  # build workload -> "cpu_seconds page_faults"
  rm -rf "$work/out"
  case $2 in
    one_step) set -- "$1" --arch transformer --placements pre --depths 8 --widths 64 --lrs 0.001 --warmups 0 --steps 1 ;;
    preset) set -- "$1" --preset transformer --placements pre --lrs 1e-3 --warmups 0 --seeds 0 ;;
  esac
  build=$1
  shift
  perf stat -x, -e page-faults,task-clock -o "$work/stat" "$build/lab/tapegrad-depth" "$@" --jobs 1 --no-plots \
    --out "$work/out" >/dev/null 2>&1
  faults=$(grep page-faults "$work/stat" | cut -d, -f1)
  cpu=$(awk -F, '/task-clock/ {print $1 / 1000}' "$work/stat")
  echo "$cpu $faults"
}
for i in $(seq "$rounds"); do
  for workload in one_step preset; do
    if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for side in $order; do
      if [ "$side" = old ]; then b=$old; else b=$new; fi
      echo "$workload $side $(run "$b" "$workload")" >>"$work/results"
    done
  done
done
awk -v rounds="$rounds" '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { n[$1, $2]++; t[$1, $2, n[$1, $2]] = $3; f[$1, $2, n[$1, $2]] = $4 }
  END {
    printf "%-9s %12s %12s %8s %8s  %s\n", "workload", "old CPU s", "new CPU s", "new/old", "range", "page faults old -> new (median)"
    split("one_step preset", names, " ")
    for (w = 1; w <= 2; w++) {
      name = names[w]; lo = 1e9; hi = 0
      for (i = 1; i <= rounds; i++) {
        to[i] = t[name, "old", i]; tn[i] = t[name, "new", i]; r[i] = tn[i] / to[i]
        fo[i] = f[name, "old", i]; fn[i] = f[name, "new", i]
        if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
      printf "%-9s %12.2f %12.2f %8.3f %.3f-%.3f  %d -> %d\n", name, median(to, rounds), median(tn, rounds),
        median(r, rounds), lo, hi, median(fo, rounds), median(fn, rounds) } }' "$work/results"
