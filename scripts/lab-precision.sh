#!/usr/bin/env bash
# Post-Norm against Pre-Norm in low precision (docs/lab.md, "Low precision"): the lab's sweeps with --precisions,
# side by side with float64, then tools/precision_table.py's table of failures, skipped steps and eval losses.
#   ffn          the default sweep's task and model (d = 32, 200 steps), post and pre, depths 2-32, lr 3e-3 and
#                1e-2 without warmup, seed 0: 140 runs (one seed: each precision against float64's same run;
#                those cells are far from the failure line, see docs/lab.md, "Which results hold where")
#   transformer  --preset transformer's model and task (Xavier init, d = 32, 4 heads, 8 tokens, batch 16), post
#                and pre, depths 2-24, lr 1e-3 without warmup: 56 runs
# in fp64, fp32, bf16, bf16-mixed, fp16, fp16-mixed (float32 master weights, dynamic loss scale) and
# fp16-mixed-noscale (master weights without the loss scale).
# Usage: scripts/lab-precision.sh [OUT]   (default OUT: results/precision); its time: docs/performance.md.
# TAPEGRAD_BUILD_DIR: the build whose tapegrad-depth runs (default build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-results/precision}"
depth="${TAPEGRAD_BUILD_DIR:-$root/build}/lab/tapegrad-depth"
[ -x "$depth" ] || "$root/scripts/lab.sh" --help > /dev/null  # installs what is missing and builds it
precisions=fp64,fp32,bf16,bf16-mixed,fp16,fp16-mixed,fp16-mixed-noscale
"$depth" --out "$out/ffn" --placements post,pre --depths 2,4,8,16,32 --lrs 3e-3,1e-2 --warmups 0 --seeds 0 \
  --precisions "$precisions" --no-plots > /dev/null
"$depth" --out "$out/transformer" --preset transformer --placements post,pre --depths 2,6,12,24 --lrs 1e-3 \
  --warmups 0 --seeds 0 --precisions "$precisions" --no-plots > /dev/null
for part in ffn transformer; do
  echo "== $part"
  cat "$out/$part/summary.txt"
done
/usr/bin/python3 "$root/tools/precision_table.py" "$out/ffn" "$out/transformer"
