#!/usr/bin/env bash
# The width study's committed results (docs/lab.md, "Across widths"), checked cheaply: the study itself takes
# about 12 CPU-minutes (scripts/lab-widths.sh), so this test does not re-run it but checks that
#   - docs/lab/widths.txt is what the script's table step prints from the committed data
#     (tools/width_study.py tables docs/lab/width_study.csv), byte for byte;
#   - every table of it, and its one-line summary, appear verbatim in docs/lab.md (and the line in README.md):
#     nothing there is written by hand;
#   - the committed data are this build's: the study's smallest runs (d = 32, L = 6, post and pre, seed 0, and
#     the three checks' at d = 64, L = 6: 7 runs) re-run here give the rows of width_study.csv to a relative
#     1e-9 (seconds; the last bits are the BLAS kernel's, see below).
# After a change that moves them on purpose: scripts/lab-widths.sh, then copy results/widths/width_study.csv,
# width_study.png and the printed tables (> docs/lab/widths.txt) to docs/lab/, and docs/lab.md's tables from it.
# Usage: width_tables_test.sh SOURCE_DIR BUILD_DIR SCRATCH
set -euo pipefail
src=$1 build=$2 scratch=$3
fail() { echo "FAIL: width_tables: $*"; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$src"
/usr/bin/python3 tools/width_study.py tables docs/lab/width_study.csv > "$scratch/widths.txt"
if ! cmp -s "$scratch/widths.txt" docs/lab/widths.txt; then
  diff docs/lab/widths.txt "$scratch/widths.txt" || true
  fail "docs/lab/widths.txt is not what tools/width_study.py tables prints from docs/lab/width_study.csv"
fi
# Each table (a run of lines starting with "|") and the summary line, verbatim in docs/lab.md (a README quoting
# any of its numbers quotes the whole line).
/usr/bin/python3 - docs/lab/widths.txt docs/lab.md README.md <<'PY' || fail "docs/lab.md or README.md differ from docs/lab/widths.txt (see above)"
import sys
text, doc, readme = (open(p).read() for p in sys.argv[1:])
tables, block = [], []
for line in text.splitlines() + [""]:
    if line.startswith("|"):
        block.append(line)
    elif block:
        tables.append("\n".join(block)), block.clear()
bad = [t.splitlines()[0] for t in tables if t not in doc]
summary = [l for l in text.splitlines() if l.startswith("In short: ")]
# (README.md, at most 150 lines, points at docs/lab.md for these numbers and quotes none of them.)
if summary and summary[0][len("In short: "):] in " ".join(readme.split()):
    pass  # quoted verbatim: fine
elif any(n in readme for n in ("0.37, 0.34, 0.28", "1.15, 3.34, 5.27")):
    bad.append("README.md quotes width numbers that are not the summary line's")
if not summary or summary[0][len("In short: "):] not in " ".join(doc.split()):
    bad.append("docs/lab.md lacks the summary line")
for b in bad:
    print("not as in widths.txt: " + b)
sys.exit(1 if bad else 0)
PY
# The smallest runs again, with the script's options.
bin="$build/lab/tapegrad-depth"
common=(--arch transformer --init xavier --depths 6 --warmups 0 --seeds 0 --heads 4 --seq-len 8 --batch 16
        --train-size 1024 --eval-size 256 --steps 1 --grad-batches 16 --tracked-steps 1 -j 1)
"$bin" --diagnose "$scratch/main" "${common[@]}" --placements post,pre --lrs 1e-3 --widths 32 > /dev/null
"$bin" --diagnose "$scratch/lr" "${common[@]}" --placements post,pre --lrs 1e-4 --widths 64 > /dev/null
"$bin" --diagnose "$scratch/final" "${common[@]}" --placements pre --lrs 1e-3 --widths 64 --final-norm-mode none > /dev/null
"$bin" --diagnose "$scratch/embed" "${common[@]}" --placements post,pre --lrs 1e-3 --widths 64 --embed-scale unit > /dev/null
/usr/bin/python3 tools/width_study.py extract "$scratch"/{main,lr,final,embed} > "$scratch/rerun.csv"
[ "$(wc -l < "$scratch/rerun.csv")" -eq 8 ] || fail "the re-run gave $(($(wc -l < "$scratch/rerun.csv") - 1)) rows, not 7"
# Equal to a relative 1e-9, not byte for byte: these are one-step float64 runs, so they agree with the committed
# numbers to about 1e-15 on any machine, but not in the last bit, which depends on the BLAS kernel that OpenBLAS
# picks for the CPU (and on the build type). 1e-9 still catches any change of the model or the measurement.
/usr/bin/python3 - "$scratch/rerun.csv" docs/lab/width_study.csv <<'PY' || fail "the re-run differs from docs/lab/width_study.csv (above)"
import csv, sys
rerun, committed = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
keys = ["placement", "d", "depth", "seed", "lr", "final_norm_mode", "embed_scale"]
by_key = {tuple(r[k] for k in keys): r for r in committed}
bad = 0
for r in rerun:
    c = by_key.get(tuple(r[k] for k in keys))
    if c is None:
        print("re-run row not in docs/lab/width_study.csv: " + ",".join(r.values())); bad += 1; continue
    for col in r:
        if col in keys:
            continue
        a, b = float(r[col]), float(c[col])
        if abs(a - b) > 1e-9 * max(abs(a), abs(b)):
            print("%s %s: re-run %r, committed %r (relative %.1e > 1e-9)"
                  % (",".join(r[k] for k in keys), col, a, b, abs(a - b) / max(abs(a), abs(b)))); bad += 1
sys.exit(1 if bad else 0)
PY
echo "PASS: width_tables"
