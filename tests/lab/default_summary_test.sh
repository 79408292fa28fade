#!/usr/bin/env bash
# The default sweep's verdict holds on every machine (issue 41). OpenBLAS picks its kernels by CPU, and the
# last bits of a dot product differ between kernels; deep Post-Norm training is chaotic, so one seed's final
# loss can move by 0.5 when the kernel changes. OPENBLAS_CORETYPE runs another CPU's kernels on this one.
#   default_summary_test.sh TAPEGRAD_DEPTH SOURCE_DIR WORK_DIR summary KERNEL
#       the default sweep (3 seeds) under KERNEL prints exactly docs/lab/summary.txt, which README.md's table
#       shows (docs/lab.md says so; the doc test compares the README with the file). Run under two kernels,
#       this is the test that the summary is the same on both. Then `report` of the same runs with
#       TAPEGRAD_LANG=zh prints exactly docs/lab/summary.zh.txt (the Chinese text of the same table).
#   default_summary_test.sh TAPEGRAD_DEPTH SOURCE_DIR WORK_DIR one_seed KERNEL_A KERNEL_B
#       why three seeds: Post-Norm, L = 32, lr 3e-3, warmup 100, seed 0 alone, under two kernels: its final
#       eval loss moves by more than 0.1 (on the AMD EPYC where issue 41 was found, 1.086 and 1.519: its
#       one-seed verdict flips, which the test prints). If the run ever stops moving, the premise of the
#       3-seed summary changed and the test fails.
# KERNEL "other" is SkylakeX where the CPU has AVX-512, else Sandybridge (AVX). A kernel this CPU cannot run
# is skipped with a message ("SKIPPED:").
set -uo pipefail
bin="$1"; src="$2"; work="$3"; mode="$4"; shift 4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1

# The CPU flags each kernel needs (OpenBLAS does not check them when OPENBLAS_CORETYPE forces a kernel).
runs_here() {
  local need
  case "$1" in
    SkylakeX|Cooperlake) need=avx512f ;;
    Haswell|Zen) need=avx2 ;;
    Sandybridge) need=avx ;;
    *) need=sse2 ;;
  esac
  grep -qw "$need" /proc/cpuinfo
}
# The kernel OpenBLAS says it runs (OPENBLAS_VERBOSE=2 prints "Core: Haswell" on the first BLAS call).
core_of() {
  OPENBLAS_CORETYPE="$1" OPENBLAS_VERBOSE=2 "$bin" --placements post --depths 1 --lrs 0.01 --warmups 0 --seeds 0 \
    --widths 4 --steps 1 --batch 4 --train-size 8 --eval-size 4 --no-plots -j 1 --out core_check 2>&1 |
    sed -n 's/^Core: *//p' | head -1
}
# "other": a second kernel this CPU runs, the one that differs most from Haswell's (AVX-512's where there is one).
kernels=()
for kernel in "$@"; do
  if [ "$kernel" = other ]; then
    if grep -qw avx512f /proc/cpuinfo; then kernel=SkylakeX; else kernel=Sandybridge; fi
  fi
  kernels+=("$kernel")
done
set -- "${kernels[@]}"
for kernel in "$@"; do
  runs_here "$kernel" || { echo "SKIPPED: this CPU cannot run OpenBLAS's $kernel kernels"; exit 0; }
  core=$(core_of "$kernel")
  [ "$core" = "$kernel" ] || fail "OPENBLAS_CORETYPE=$kernel ran OpenBLAS's '$core' kernels"
done

case "$mode" in
  summary)
    kernel=$1
    OPENBLAS_CORETYPE="$kernel" "$bin" --out sweep --no-plots -j 1 > sweep.log 2>&1 || fail "the default sweep: $(tail sweep.log)"
    if ! cmp -s sweep/summary.txt "$src/docs/lab/summary.txt"; then
      diff "$src/docs/lab/summary.txt" sweep/summary.txt
      fail "the default sweep under $kernel's kernels prints another summary than docs/lab/summary.txt (above)"
    fi
    echo "the default sweep under OpenBLAS's $kernel kernels prints docs/lab/summary.txt"
    # The same runs' summary in Chinese (report rewrites the folder's text from runs/; no run trains again).
    TAPEGRAD_LANG=zh "$bin" report sweep > report-zh.log 2>&1 || fail "report in Chinese: $(tail report-zh.log)"
    if ! cmp -s sweep/summary.txt "$src/docs/lab/summary.zh.txt"; then
      diff "$src/docs/lab/summary.zh.txt" sweep/summary.txt
      fail "the default sweep's summary in Chinese (TAPEGRAD_LANG=zh) is not docs/lab/summary.zh.txt (above)"
    fi
    echo "and in Chinese docs/lab/summary.zh.txt"
    echo "PASS: default_summary" ;;
  one_seed)
    one=(--placements post --depths 32 --lrs 3e-3 --warmups 100 --seeds 0 --no-plots -j 1)
    for kernel in "$1" "$2"; do
      OPENBLAS_CORETYPE="$kernel" "$bin" --out "$kernel" "${one[@]}" > "$kernel.log" 2>&1 || fail "$kernel: $(tail "$kernel.log")"
    done
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "one seed no longer moves between kernels (above): check the premise of the 3-seed summary"
import csv, sys
a, b = (next(csv.DictReader(open(k + "/runs.csv"))) for k in sys.argv[1:])
la, lb = float(a["eval_loss"]), float(b["eval_loss"])
print("post, L = 32, lr 3e-3, warmup 100, seed 0: eval loss %.3f under %s (%s), %.3f under %s (%s)"
      % (la, sys.argv[1], "failed" if a["failed"] == "1" else "trained", lb, sys.argv[2],
         "failed" if b["failed"] == "1" else "trained"))
print("its one-seed verdict " + ("flips" if a["failed"] != b["failed"] else "holds, but its loss moved by %.3f" % abs(la - lb)))
sys.exit(0 if abs(la - lb) > 0.1 else 1)
PY
    echo "PASS: default_summary" ;;
  *) fail "mode: summary or one_seed, not '$mode'" ;;
esac
