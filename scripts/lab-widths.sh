#!/usr/bin/env bash
# The width study (docs/lab.md, "Across widths"): the papers' two findings that do not reproduce at d = 32,
# measured at larger widths. tapegrad-depth --diagnose on the Transformer lab (post and pre, Xavier init, 3 seeds,
# 4 heads, 8 tokens, batch 16, lr 1e-3 without warmup, K = 16 minibatches at init, one tracked update), then
# tools/width_study.py:
#   extract   the diagnose folders -> OUT/width_study.csv (one row per run: the FFN output projection's expected
#             gradient at the first and last block, the attention's, the first update's output change);
#   tables    width_study.csv -> the printed tables (Pre-Norm's last/first ratio against d and L, Post-Norm's
#             last-FFN gradient, the O(N)/O(log N) fits with R^2 and a bootstrap interval over seeds);
#   figure    width_study.csv -> OUT/width_study.png.
# Quick (default): d = 32, 64, 128 at L = 6, 8, 12, 16, 24, 32, 48, plus two checks of the likeliest causes at
#   d = 64: no final LayerNorm (--final-norm-mode none) and unit-norm inputs (--embed-scale unit); and Liu et al.'s
#   learning rate for the fits (lr 1e-4 besides 1e-3, d = 64). Its time: docs/performance.md.
# --full: also d = 256, and L = 64, 96 at every width (an hour or more of CPU).
# Usage: scripts/lab-widths.sh [--full] [OUT]   (default OUT: results/widths)
# TAPEGRAD_BUILD_DIR: the build whose tapegrad-depth runs (default build/). docs/lab/widths.txt and
# docs/lab/width_study.csv are this script's output with the default OUT (lab.width_tables checks the tables).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
out="${1:-results/widths}"
depth="${TAPEGRAD_BUILD_DIR:-$root/build}/lab/tapegrad-depth"
[ -x "$depth" ] || "$root/scripts/lab.sh" --help > /dev/null  # installs what is missing and builds it
widths=32,64,128 depths=6,8,12,16,24,32,48
if [ "$full" = 1 ]; then widths=32,64,128,256 depths=6,8,12,16,24,32,48,64,96; fi
diagnose() {  # diagnose FOLDER PLACEMENTS LR OPTIONS...: the study's runs, with OPTIONS on top
  local dir=$1 placements=$2 lr=$3; shift 3
  "$depth" --diagnose "$out/$dir" --arch transformer --init xavier --placements "$placements" --depths "$depths" \
    --lrs "$lr" --warmups 0 --seeds 0,1,2 --heads 4 --seq-len 8 --batch 16 --train-size 1024 --eval-size 256 \
    --steps 1 --grad-batches 16 --tracked-steps 1 "$@" > /dev/null
}
diagnose main post,pre 1e-3 --widths "$widths"
diagnose lr1e-4 post,pre 1e-4 --widths 64
diagnose no-final-norm pre 1e-3 --widths 64 --final-norm-mode none  # Post-Norm has no final norm
diagnose unit-embedding post,pre 1e-3 --widths 64 --embed-scale unit
folders=()
for dir in main lr1e-4 no-final-norm unit-embedding; do folders+=("$out/$dir"); done
/usr/bin/python3 "$root/tools/width_study.py" extract "${folders[@]}" > "$out/width_study.csv"
/usr/bin/python3 "$root/tools/width_study.py" figure "$out/width_study.csv" "$out/width_study.png"
/usr/bin/python3 "$root/tools/width_study.py" tables "$out/width_study.csv"
