#!/usr/bin/env bash
# The doc test in a checkout where the quick start has run: scripts/lab.sh writes results/depth into the
# checkout, and the docs name other output folders (results/small, ...) that do not exist then. The doc
# test must take results/ for output, not for a source folder whose files are missing; once a newcomer's
# second command (scripts/test.sh) failed just so.
#   after_a_sweep_test.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR
# The static checks (--list) run on a copy of the source tree, as a git checkout and as a plain folder
# (a tarball), each after what scripts/lab.sh runs (build/lab/tapegrad-depth, output results/depth; a tiny
# sweep here) has run once and then twice.
set -uo pipefail
python="$1"; source="$2"; build="$3"; work="$4"
fail() { echo "FAIL: $*"; exit 1; }
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"; mkdir -p "$work" || exit 1
tiny=(--placements post --depths 1 --lrs 0.01 --warmups 0 --widths 4 --steps 4 --batch 8 --train-size 16
      --eval-size 8 --eval-every 2 --no-plots)

for kind in git plain; do
  tree="$work/$kind"
  "$python" - "$source" "$tree" << 'PY' || fail "could not copy the source tree"
import os, shutil, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "docs"))
from doc_markdown import source_files
for rel in source_files(sys.argv[1]):
    target = os.path.join(sys.argv[2], rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy2(os.path.join(sys.argv[1], rel), target, follow_symlinks=False)
PY
  ln -s "$build" "$tree/build"  # the build under test, where a checkout has its own (git ignores it)
  if [ "$kind" = git ]; then
    (cd "$tree" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm tree) || fail "git init of the copy"
  fi
  for round in 1 2; do
    (cd "$tree" && "$build/lab/tapegrad-depth" "${tiny[@]}" > "$work/$kind-lab-$round.log" 2>&1) \
      || fail "the sweep ($kind, run $round) failed: $(cat "$work/$kind-lab-$round.log")"
    [ -s "$tree/results/depth/runs.csv" ] || fail "the sweep wrote no results/depth/runs.csv"
    "$python" "$here/doc_test.py" --source-dir "$tree" --build-dir "$build" --scratch "$work/scratch" --list \
      > "$work/$kind-docs-$round.log" 2>&1 \
      || fail "the doc test fails in a $kind checkout after scripts/lab.sh ran $round time(s): $(grep FAIL "$work/$kind-docs-$round.log")"
  done
  echo "$kind checkout: the doc test passes after one and after two sweeps into results/depth"
done
echo "PASS: after_a_sweep"
