#!/usr/bin/env bash
# tools/paper_diagnostics.py on ordinary --diagnose output of tiny Transformer runs (seconds):
#   - one depth: the tables, and the output-change table saying that a fit needs two depths (no crash);
#   - two learning rates: one set of tables per learning rate, each exactly the tables of that learning rate's
#     runs diagnosed alone (so nothing is pooled across them).
#   paper_diagnostics_test.sh TAPEGRAD_DEPTH SOURCE_DIR WORK_DIR
set -uo pipefail
bin="$1"; src="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--arch transformer --init xavier --placements post,pre --warmups 0 --seeds 0,1 --widths 4 --heads 2
      --seq-len 3 --batch 4 --train-size 32 --eval-size 8 --steps 3 --grad-batches 16 --tracked-steps 3)
summarise() { /usr/bin/python3 "$src/tools/paper_diagnostics.py" "$@"; }

"$bin" --diagnose one "${tiny[@]}" --depths 2 --lrs 1e-3 > /dev/null || fail "--diagnose at one depth failed"
summarise one > one.txt 2>&1 || fail "one depth: $(cat one.txt)"
grep -q "a fit against depth needs two depths or more; these runs have L = 2 only" one.txt ||
  fail "one depth: no word that a fit needs two depths: $(cat one.txt)"

"$bin" --diagnose two "${tiny[@]}" --depths 2,3 --lrs 1e-3,1e-2 > /dev/null || fail "--diagnose at two lrs failed"
"$bin" --diagnose alone "${tiny[@]}" --depths 2,3 --lrs 1e-2 > /dev/null || fail "--diagnose at lr 1e-2 failed"
summarise two > two.txt 2>&1 || fail "two lrs: $(cat two.txt)"
summarise alone > alone.txt 2>&1 || fail "lr 1e-2 alone: $(cat alone.txt)"
grep -q "^== lr 0.001$" two.txt && grep -q "^== lr 0.01$" two.txt || fail "two lrs: not one heading per lr: $(cat two.txt)"
sed -n '/^== lr 0.01$/,$p' two.txt | sed '1d; ${/^$/d}' > two_lr0.01.txt
diff alone.txt two_lr0.01.txt > diff.txt || fail "the tables of lr 0.01 differ from those of its runs alone: $(cat diff.txt)"
echo "PASS: paper_diagnostics"
