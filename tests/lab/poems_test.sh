#!/usr/bin/env bash
# tapegrad-depth poems (lab/cli/poems_command.cpp) and the numbers docs/lab.md quotes from it:
#   run       a 4-step run of the command on the Tang poems: its summary's form, the files it writes, a resumed run
#   doc       docs/lab/poems_run.txt (scripts/poems.sh --doc wrote it): the model beats both baselines by the margin
#             docs/lab.md states, and its baselines are the ones the command prints today (same corpus, same code)
#   missing   a missing corpus: exit status 1 and a message naming the path and the package
#   english   docs/lab/english_run.txt (scripts/poems.sh --doc --task english) against the margin docs/lab.md states
# Usage: poems_test.sh TAPEGRAD_DEPTH SOURCE_DIR WORK_DIR  (prints PASS: poems, SKIPPED: or FAIL:)
set -uo pipefail
bin=$1 src=$2 work=$3
fail() { echo "FAIL: poems: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

out=$("$bin" poems --corpus /nonexistent/tang300 --out "$work/missing" 2>&1); status=$?
[ "$status" = 1 ] || fail "a missing corpus exits $status, expected 1"
grep -q "/nonexistent/tang300" <<<"$out" && grep -q "apt-get install fortunes-zh" <<<"$out" ||
  fail "a missing corpus's message names neither the path nor the package: $out"

corpus=/usr/share/games/fortunes/tang300
[ -r "$corpus" ] || { echo "SKIPPED: poems: $corpus is missing (scripts/deps.sh lab installs fortunes-zh)"; exit 0; }

"$bin" poems --out "$work/run" --steps 4 --warmup 1 --eval-every 2 --depth 1 -d 16 --block 16 --batch 4 --chars 20 \
  >"$work/run.log" 2>&1 || fail "the 4-step run failed: $(tail -3 "$work/run.log")"
for f in summary.txt sample.txt checkpoint/state.txt; do [ -s "$work/run/$f" ] || fail "the run wrote no $f"; done
head -c 6 "$work/run/sample.txt" | grep -q "春眠" || fail "the sample does not start with the prompt 春眠"
grep -q "^training: 4 steps in" "$work/run/summary.txt" || fail "the summary has no 'training: 4 steps' line"
"$bin" poems --out "$work/run" --steps 6 --warmup 1 --eval-every 2 --depth 1 -d 16 --block 16 --batch 4 --chars 20 \
  --resume >"$work/resume.log" 2>&1 && fail "resuming a run of other --steps was accepted"
grep -q "not of this one" "$work/resume.log" || fail "a checkpoint of another run: $(tail -2 "$work/resume.log")"

# The committed numbers (scripts/poems.sh --doc [--task english] wrote DOC): the model beats both baselines by the
# margin docs/lab.md states in the sentence "<PHRASE> by at least M bits per character", and the baselines are the
# ones the command prints today in RUN/summary.txt.
# check_doc DOC PHRASE RUN WHAT
check_doc() {
  local doc=$1 phrase=$2 run=$3 what=$4 margin unigram bigram model
  margin=$(grep -o "$phrase by at least [0-9.]* bits per character" "$src/docs/lab.md" | grep -o "[0-9.]*" | head -1)
  [ -n "$margin" ] || fail "docs/lab.md states no margin ('$phrase by at least M bits per character')"
  unigram=$(grep "^  unigram" "$doc" | awk '{print $3}') bigram=$(grep "^  bigram" "$doc" | awk '{print $3}')
  model=$(grep "^  model" "$doc" | awk '{print $2}')
  awk -v m="$model" -v u="$unigram" -v b="$bigram" -v d="$margin" 'BEGIN { exit !(m + d <= b && m + d <= u) }' ||
    fail "${doc#$src/}: the model's $model bpc is not $margin below the bigram's $bigram and the unigram's $unigram"
  grep -q "^  unigram (add-one) *$unigram\$" "$run/summary.txt" && grep -q "^  bigram (unigram-smoothed) *$bigram\$" "$run/summary.txt" ||
    fail "the baselines in ${doc#$src/} ($unigram, $bigram) are not the command's today: $what"
}
check_doc "$src/docs/lab/poems_run.txt" "beats both baselines" "$work/run" "scripts/poems.sh --doc"

# The English run: its baselines against a 4-step run on the fortunes. Skipped without them.
english=/usr/share/games/fortunes/fortunes
if [ -r "$english" ]; then
  "$bin" poems --task english --out "$work/english" --steps 4 --warmup 1 --eval-every 2 --depth 1 -d 16 --block 16 \
    --batch 4 --chars 20 >"$work/english.log" 2>&1 || fail "the 4-step English run failed: $(tail -3 "$work/english.log")"
  check_doc "$src/docs/lab/english_run.txt" "English model beats both baselines" "$work/english" \
    "scripts/poems.sh --doc --task english"
else
  echo "(docs/lab/english_run.txt not checked: $english is missing; scripts/deps.sh lab installs fortunes)"
fi
echo "PASS: poems"
