#!/usr/bin/env bash
# docs/lab/precision.txt is what scripts/lab-precision.sh prints with this build (docs/lab.md quotes it):
# the committed tables are regenerated and compared byte for byte. After a change that moves them on purpose:
#   scripts/lab-precision.sh > docs/lab/precision.txt
# Usage: precision_tables_test.sh SOURCE_DIR BUILD_DIR SCRATCH
set -euo pipefail
src=$1 build=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$src"
TAPEGRAD_BUILD_DIR="$build" scripts/lab-precision.sh "$scratch/results" > "$scratch/precision.txt"
# The table names its folders: the committed one was made with the default OUT.
sed -i "s|^$scratch/results/|results/precision/|" "$scratch/precision.txt"
if cmp -s "$scratch/precision.txt" docs/lab/precision.txt; then
  echo "PASS: precision_tables"
else
  diff docs/lab/precision.txt "$scratch/precision.txt" || true
  echo "FAIL: docs/lab/precision.txt is not what scripts/lab-precision.sh prints now"
fi
