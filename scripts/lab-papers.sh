#!/usr/bin/env bash
# The papers' own definitions, from the lab's runs (docs/lab.md, "The papers' definitions"): tapegrad-depth
# --diagnose on the Transformer lab at L = 6, 12, 24, 48 (post and pre, 2 seeds, Xavier init, the preset's
# width, heads and task; lr 1e-3 without warmup), then tools/paper_diagnostics.py's tables:
#   - the expected gradient over K = 16 minibatches per block (Xiong et al. 2020, Fig. 3),
#   - E||x_l||^2 per block against Lemma 2's bounds, and the fraction of blocks inside them,
#   - the first step's output change against depth, fitted by a + b*N and a + b*ln N, with R^2 (Liu et al. 2020),
#   - ||dF|| over the first 100 updates (DeepNet 2022).
# Usage: scripts/lab-papers.sh [OUT]   (default OUT: results/papers); its time: docs/performance.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-results/papers}"
depth="$root/build/lab/tapegrad-depth"
[ -x "$depth" ] || "$root/scripts/lab.sh" --help > /dev/null  # installs what is missing and builds it
"$depth" --diagnose "$out" --arch transformer --init xavier --placements post,pre --depths 6,12,24,48 \
  --lrs 1e-3 --warmups 0 --seeds 0,1 --widths 32 --heads 4 --seq-len 8 --batch 16 \
  --train-size 1024 --eval-size 256 --steps 100 --grad-batches 16 --tracked-steps 100 > /dev/null
/usr/bin/python3 "$root/tools/paper_diagnostics.py" "$out"
