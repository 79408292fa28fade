#!/usr/bin/env bash
# index.html of a sweep (lab/src/html_report.cpp) and `tapegrad-depth report DIR`: the page is written
# beside the results, its summary cells say trained/failed for every run, every plot is embedded
# (data: URLs, no network), every link points at a file that is there, and `report` rewrites the
# same page for a finished sweep and for a merged one.
#   html_report_test.sh TAPEGRAD_DEPTH WORKDIR
set -euo pipefail
bin="$1"; work="$2"
fail() { echo "FAIL: html_report: $*"; exit 1; }
rm -rf "$work"; mkdir -p "$work"; cd "$work"
tiny=(--placements post,rezero --depths 1,3 --lrs 0.01 --warmups 0 --widths 4 --steps 12 --batch 8 --seeds 0 -j1)
"$bin" "${tiny[@]}" --out a > a.log 2>&1 || fail "sweep failed: $(cat a.log)"
grep -q "^Page: a/index.html" a.log || fail "the sweep does not say where the page is"
page=a/index.html
[ -s "$page" ] || fail "no $page"
runs=$(find a/runs -mindepth 1 -maxdepth 1 -type d | wc -l)
cells=$(grep -o '<td class="\(trained\|failed\|between\)"' "$page" | wc -l)
[ "$cells" -eq "$runs" ] || fail "$cells summary cells for $runs runs (one run per cell here)"
pngs=$(ls a/*.png | wc -l)
embedded=$(grep -o 'src="data:image/png;base64,' "$page" | wc -l)
[ "$pngs" -gt 0 ] && [ "$embedded" -eq "$pngs" ] || fail "$embedded plots embedded, $pngs in the folder"
if grep -qE '(src|href)="(https?:)?//' "$page"; then fail "the page loads something from the network"; fi
grep -o 'href="[^"]*"' "$page" | sed 's/^href="//; s/"$//' | while read -r target; do
  [ -e "a/$target" ] || fail "link to a missing file: $target"
done
grep -q '&quot;placements&quot;' "$page" || fail "the sweep's options are not on the page"
cp "$page" first.html
rm "$page"
"$bin" report a > report.log 2>&1 || fail "report failed: $(cat report.log)"
cmp -s first.html "$page" || fail "report wrote a different page"
for i in 0 1; do "$bin" "${tiny[@]}" --out "s$i" --shard "$i/2" > "s$i.log" 2>&1 || fail "shard $i failed"; done
"$bin" merge m s0 s1 > merge.log 2>&1 || fail "merge failed: $(cat merge.log)"
[ -s m/index.html ] || fail "merge wrote no index.html"
cells=$(grep -o '<td class="\(trained\|failed\|between\)"' m/index.html | wc -l)
[ "$cells" -eq "$runs" ] || fail "the merged page has $cells cells, not $runs"
set +e; "$bin" report nowhere > bad.log 2>&1; status=$?; set -e
[ "$status" -eq 2 ] && grep -q "is not a results folder" bad.log || fail "report of a non-folder: status $status, $(cat bad.log)"
echo "PASS: html_report"
