#!/usr/bin/env bash
# The Transformer lab's initialisation diagnostics at L = 6, 12, 24, 48 (docs/lab.md's table):
# 32 runs of one step (post and pre, 4 seeds, Xavier init, the preset's width, heads and task),
# then per placement and sublayer the median over the seeds of
#   - the last/first block ratio of ||dL/dW|| of the output projection (Xiong et al. 2020, Fig. 3),
#   - the last block's ||dL/dW|| (Thm. 1: Post-Norm's does not shrink with L, Pre-Norm's ~ 1/sqrt(L)),
#   - the output change after the first Adam step (Liu et al. 2020's amplification).
# Usage: scripts/lab-init-profile.sh [OUT]   (default OUT: results/init-profile); its time: docs/performance.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-results/init-profile}"
depth="$root/build/lab/tapegrad-depth"
[ -x "$depth" ] || "$root/scripts/lab.sh" --help > /dev/null  # installs what is missing and builds it
"$depth" --arch transformer --init xavier --placements post,pre --depths 6,12,24,48 \
  --lrs 1e-3 --warmups 0 --seeds 0,1,2,3 --widths 32 --heads 4 --seq-len 8 --batch 16 \
  --train-size 1024 --eval-size 256 --steps 1 --eval-every 1 --no-plots --out "$out" > /dev/null
/usr/bin/python3 "$root/tools/init_profile.py" "$out"
