#!/usr/bin/env bash
# Tests of the tapegrad-depth command line on a tiny sweep (seconds each).
#   lab_cli_test.sh TAPEGRAD_DEPTH WORK_DIR CASE
# CASE: determinism | shard_merge | resume | damaged | interrupt | rerun | other_sweep | stale_plots | help_texts | bad_args | dump | plots
set -uo pipefail
bin="$1"; work="$2"; case="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# The tiny sweep: 2 placements x 2 depths x 2 warmups = 8 runs, of seed 0 (an option given twice adds its
# values: tiny_seed1 is the same sweep of seed 1).
unseeded=(--placements post,rezero --depths 1,3 --lrs 0.01 --warmups 0,5 --widths 4 --steps 12 --batch 8
          --train-size 64 --eval-size 32 --eval-every 4 --no-plots)
plotted=("${unseeded[@]:0:${#unseeded[@]}-1}" --seeds 0)
tiny=("${unseeded[@]}" --seeds 0)
tiny_seed1=("${unseeded[@]}" --seeds 1)
csvs=(runs.csv curves.csv init_grads.csv output_change.csv)
same_csvs() {  # same_csvs DIR1 DIR2: byte-identical CSVs
  for f in "${csvs[@]}"; do cmp "$1/$f" "$2/$f" || fail "$1/$f and $2/$f differ"; done
}
tree_sum() {  # tree_sum DIR: one checksum of every file's name and bytes under DIR
  (cd "$1" && find . -type f | LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum)
}

case "$case" in
determinism)
  "$bin" "${tiny[@]}" --out a -j1 > a.log || fail "sweep a failed: $(cat a.log)"
  "$bin" "${tiny[@]}" --out b -j1 > b.log || fail "sweep b failed"
  "$bin" "${tiny[@]}" --out c -j3 > c.log || fail "sweep c failed"
  same_csvs a b; same_csvs a c
  [ "$(wc -l < a/runs.csv)" -eq 9 ] || fail "expected 8 run rows in a/runs.csv"
  [ "$(wc -l < a/curves.csv)" -eq $((1 + 8 * 12)) ] || fail "expected 96 curve rows"
  grep -q "Deepest stack that trained" a.log || fail "no summary table on stdout"
  ;;
shard_merge)
  "$bin" "${tiny[@]}" --out full > /dev/null || fail "unsharded sweep failed"
  for i in 0 1 2; do "$bin" "${tiny[@]}" --out "s$i" --shard "$i/3" -j1 > "s$i.log" || fail "shard $i failed"; done
  [ "$(ls s0/runs | wc -l)" -eq 3 ] || fail "shard 0/3 should hold 3 of the 8 runs"
  "$bin" --no-plots merge merged s0 s1 s2 > merge.log || fail "merge failed: $(cat merge.log)"
  same_csvs full merged
  cmp full/summary.txt merged/summary.txt || fail "summaries differ"
  # Options after the subcommand, as users type them.
  "$bin" merge merged2 s0 s1 s2 --no-plots > merge2.log || fail "merge OUT DIRS... --no-plots failed: $(cat merge2.log)"
  same_csvs full merged2
  # A missing shard: exit 1, naming the missing runs, nothing written; --allow-partial merges what there is.
  "$bin" merge partial s0 s1 --no-plots > partial.log 2>&1; s=$?
  [ $s -eq 1 ] || fail "merging 2 of 3 shards should exit 1, got $s: $(cat partial.log)"
  grep -q "missing: $(ls s2/runs | head -1)" partial.log || fail "the failed merge did not name the missing runs: $(cat partial.log)"
  [ ! -e partial ] || fail "a failed merge must not write its output folder"
  "$bin" merge partial s0 s1 --no-plots --allow-partial > partial.log 2>&1 || fail "--allow-partial merge failed"
  grep -q "2 runs have no results" partial.log || fail "a partial merge did not warn about the missing runs"
  # A run in two folders (a shard passed with the full sweep), or a folder given twice.
  "$bin" merge dup full s0 --no-plots > dup.log 2>&1; s=$?
  [ $s -eq 1 ] || fail "merging overlapping folders should exit 1, got $s"
  grep -q "in two folders: $(ls s0/runs | head -1) (full, s0)" dup.log || fail "no message for a run in two folders: $(cat dup.log)"
  "$bin" merge dup s0 s0 s1 s2 > dup.log 2>&1; [ $? -eq 2 ] || fail "a folder given twice should exit 2"
  grep -q "given twice" dup.log || fail "no message for a folder given twice"
  "$bin" merge dup s0 s1 s2 --depths 3 > dup.log 2>&1; [ $? -eq 2 ] || fail "merge with a sweep option should exit 2"
  # A damaged run in a shard counts as missing, and says why.
  victim=$(ls s1/runs | head -1); head -c 20 "s1/runs/$victim/curves.csv" > cut && mv cut "s1/runs/$victim/curves.csv"
  "$bin" merge dmg s0 s1 s2 --no-plots > dmg.log 2>&1; [ $? -eq 1 ] || fail "merging a damaged run should exit 1"
  grep -q "missing: $victim; damaged in s1: curves.csv: 0 rows, the manifest says 12" dmg.log ||
    fail "no message for the damaged run: $(cat dmg.log)"
  "$bin" --placements pre --depths 1 --lrs 0.01 --warmups 0 --widths 4 --steps 3 --batch 8 --train-size 64 \
    --eval-size 32 --no-plots --out other > /dev/null || fail "other sweep failed"
  "$bin" merge bad s0 other > bad.log 2>&1; [ $? -eq 2 ] || fail "merging different sweeps should exit 2"
  grep -q "different sweep" bad.log || fail "no message for different sweeps"
  ;;
resume)
  "$bin" "${tiny[@]}" --out full > /dev/null || fail "full sweep failed"
  "$bin" "${tiny[@]}" --out r > /dev/null || fail "sweep r failed"
  # Simulate an interrupted sweep: 3 finished runs lost, one half-written run folder, stale CSVs gone.
  ls r/runs | sed -n '2p;5p;8p' | while read -r d; do rm -rf "r/runs/$d"; done
  mkdir -p "r/runs/.tmp-post_L3_d4_lr0.01_w0_T12_b8_s0"; rm -f r/*.csv
  "$bin" "${tiny[@]}" --out r --resume > resume.log || fail "resume failed"
  grep -q "3 to do (5 finished before, skipped)" resume.log || fail "resume did not skip the 5 finished runs: $(cat resume.log)"
  [ ! -e "r/runs/.tmp-post_L3_d4_lr0.01_w0_T12_b8_s0" ] || fail "resume left a partial run folder"
  same_csvs full r
  # Resuming with other options is refused.
  "$bin" "${tiny[@]}" --steps 13 --out r --resume > other.log 2>&1; [ $? -eq 2 ] || fail "resume of another sweep should exit 2"
  grep -q "different sweep" other.log || fail "no message for resuming another sweep"
  ;;
damaged)
  # --resume runs damaged run folders again (saying which and why) instead of merging them.
  "$bin" "${tiny[@]}" --out full > /dev/null || fail "full sweep failed"
  "$bin" "${tiny[@]}" --out r > /dev/null || fail "sweep r failed"
  runs=($(ls r/runs))
  head -n 5 "r/runs/${runs[0]}/curves.csv" > cut && mv cut "r/runs/${runs[0]}/curves.csv"    # truncated
  printf '\x00\xff\x13garbage' | dd of="r/runs/${runs[1]}/init_grads.csv" bs=1 seek=3 conv=notrunc 2> /dev/null  # random bytes
  sed -i 's/,[0-9.e-]*,\([01]\),/,abc,\1,/' "r/runs/${runs[2]}/run.csv"                     # a non-numeric value
  grep -q abc "r/runs/${runs[2]}/run.csv" || fail "the test did not damage run.csv"
  rm "r/runs/${runs[3]}/manifest.txt"                                                          # no manifest
  "$bin" "${tiny[@]}" --out r --resume > resume.log 2> resume.err || fail "resume failed: $(cat resume.err)"
  grep -q "4 to do (4 finished before, skipped)" resume.log || fail "resume did not redo the 4 damaged runs: $(cat resume.log)"
  grep -q "${runs[0]} is damaged (curves.csv: 5 rows, the manifest says 12); running it again" resume.err ||
    fail "no message for the truncated curves.csv: $(cat resume.err)"
  grep -q "${runs[1]} is damaged (init_grads.csv: its checksum does not match" resume.err || fail "no message for init_grads.csv"
  grep -q "${runs[2]} is damaged (run.csv: its checksum" resume.err || fail "no message for run.csv"
  grep -q "${runs[3]} is damaged (manifest.txt is missing" resume.err || fail "no message for the missing manifest"
  same_csvs full r
  ;;
interrupt)
  # A real kill: SIGINT once two runs have finished (the lab's hold point: it writes held and starts
  # no further run, so no build is fast enough to finish the sweep first), then --resume.
  big=(--placements post,pre --depths 1,2,3,4 --lrs 0.01 --warmups 0,5 --seeds 0 --widths 8 --steps 400 --batch 8
       --train-size 64 --eval-size 32 --eval-every 50 --no-plots -j1)
  "$bin" "${big[@]}" --out full > /dev/null || fail "full sweep failed"
  TAPEGRAD_LAB_HOLD_AFTER_RUNS="2:$PWD/held" "$bin" "${big[@]}" --out k > k.log 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do [ -e held ] && break; sleep 0.05; done
  [ -e held ] || fail "the sweep never reached its hold point: $(cat k.log)"
  kill -INT "$pid"; wait "$pid"; status=$?
  done_runs=$(ls k/runs | grep -vc '^\.tmp-')
  [ "$status" -eq 130 ] || fail "an interrupted sweep should exit 130, got $status: $(cat k.log)"
  grep -q "rerun with the same options and --resume" k.log || fail "no resume hint after Ctrl-C"
  [ "$done_runs" -eq 2 ] || fail "expected the 2 runs before the hold point, found $done_runs"
  "$bin" "${big[@]}" --out k --resume > resume.log || fail "resume failed"
  grep -q "14 to do (2 finished before, skipped)" resume.log || fail "resume did not skip the 2 finished runs: $(cat resume.log)"
  same_csvs full k
  ;;
rerun)
  # The same command twice (scripts/lab.sh run again): the second trains the whole sweep again, says that
  # it replaced the first one's runs, and gives the same files; it never reuses part of the first.
  "$bin" "${tiny[@]}" --out r > first.log || fail "the first sweep failed: $(cat first.log)"
  "$bin" "${tiny[@]}" --out first-copy > /dev/null || fail "the reference sweep failed"
  "$bin" "${tiny[@]}" --out r > second.log || fail "the same sweep again failed: $(cat second.log)"
  grep -q "r held 8 runs of an earlier sweep: they are replaced by this one (--resume keeps finished runs)" second.log \
    || fail "the second run did not say that it replaces the first one's runs: $(cat second.log)"
  grep -q "8 runs, 8 to do, on" second.log || fail "the second run did not train every run again: $(cat second.log)"
  grep -q "earlier sweep" first.log && fail "a first sweep into a new folder spoke of an earlier one: $(cat first.log)"
  same_csvs first-copy r
  cmp first-copy/summary.txt r/summary.txt || fail "summaries differ"
  ;;
other_sweep)
  # A different sweep into a folder holding runs (a quick experiment into the default --out) is refused before
  # any work: exit 2, the folder untouched, the message naming the three ways on. --overwrite replaces them.
  "$bin" "${tiny[@]}" --out o > /dev/null || fail "the first sweep failed"
  before=$(tree_sum o)
  "$bin" "${tiny_seed1[@]}" --out o > other.log 2> other.err; s=$?
  [ $s -eq 2 ] || fail "a different sweep into o exited $s, expected 2: $(cat other.log other.err)"
  for word in "o holds 8 runs of a different sweep" --resume "a new --out" --overwrite; do
    grep -q -- "$word" other.err || fail "the refusal does not name '$word': $(cat other.err)"
  done
  [ "$(tree_sum o)" = "$before" ] || fail "the refused sweep changed o"
  "$bin" "${tiny_seed1[@]}" --out o --resume > /dev/null 2>&1; [ $? -eq 2 ] || fail "--resume of another sweep should exit 2"
  "$bin" "${tiny[@]}" --out o --resume --overwrite > /dev/null 2>&1; [ $? -eq 2 ] || fail "--resume --overwrite should exit 2"
  rm o/sweep.json; "$bin" "${tiny[@]}" --out o > nojson.log 2>&1; [ $? -eq 2 ] || fail "runs without a sweep.json were replaced"
  grep -q "it has no sweep.json" nojson.log || fail "no reason given for runs without sweep.json: $(cat nojson.log)"
  "$bin" "${tiny_seed1[@]}" --out o --overwrite > over.log 2>&1 || fail "--overwrite failed: $(cat over.log)"
  [ "$(ls o/runs | grep -c '_s1$')" -eq 8 ] && [ "$(ls o/runs | wc -l)" -eq 8 ] ||
    fail "--overwrite should leave the 8 runs of the new sweep (seed 1): $(ls o/runs)"
  tr -d ' \n' < o/sweep.json | grep -q '"seeds":\[1\]' || fail "sweep.json is not the new sweep's: $(cat o/sweep.json)"
  ;;
stale_plots)
  # Figures of an earlier report that this one does not draw are gone: under --no-plots all of them, after a
  # sweep with other learning rates the curves of the old ones; index.html shows only what is there now.
  "$bin" "${plotted[@]}" --out s > /dev/null 2>&1 || fail "the sweep with plots failed"
  [ -s s/curves_lr0.01_w0.gp ] || fail "no figure scripts written"
  touch s/mine.png  # not the lab's (no script beside it): left alone
  "$bin" "${tiny[@]}" --out s > /dev/null 2>&1 || fail "the same sweep with --no-plots failed"
  leftover=$(cd s && ls *.gp curves_*.png eval_vs_depth.png 2> /dev/null)
  [ -z "$leftover" ] || fail "--no-plots left the earlier figures: $leftover"
  [ -e s/mine.png ] || fail "a PNG that is not the lab's was removed"
  ! grep -q 'alt="eval_vs_depth.png"' s/index.html || fail "index.html still shows the earlier plots after --no-plots"
  grep -q 'alt="mine.png"' s/index.html || fail "index.html does not show the folder's other PNG"
  rm s/mine.png
  "$bin" "${plotted[@]}" --out s > /dev/null 2>&1 || fail "the sweep with plots again failed"
  "$bin" "${plotted[@]/#0.01/0.02}" --overwrite --out s > /dev/null 2>&1 || fail "the sweep at lr 0.02 failed"
  [ ! -e s/curves_lr0.01_w0.gp ] && [ ! -e s/curves_lr0.01_w0.png ] || fail "the curves of lr 0.01 are still there"
  [ -e s/curves_lr0.02_w0.gp ] || fail "no curves of lr 0.02"
  ! grep -q "curves_lr0.01" s/index.html || fail "index.html shows the curves of lr 0.01"
  ;;
help_texts)
  # What --help and the messages name: every subcommand, merge's own options, the option as typed; --dump offers
  # the PyTorch replay only for a run it can replay.
  "$bin" --help > help.log || fail "--help failed"
  sed -n '/^Subcommands:/,$p' help.log | grep -q "^  report " || fail "--help does not list report: $(cat help.log)"
  "$bin" merge --help > merge_help.log || fail "merge --help failed"
  grep -q -- "--no-plots" merge_help.log && grep -q -- "--allow-partial" merge_help.log ||
    fail "merge --help does not list --no-plots and --allow-partial: $(cat merge_help.log)"
  "$bin" --no-plots report x > report.log 2>&1; [ $? -eq 2 ] || fail "options before report should exit 2"
  [ ! -e x ] || fail "a refused report wrote x"
  "$bin" --precisions fp8 --out x > /dev/null 2> p.err; grep -q "^tapegrad-depth: --precisions: " p.err || fail "not --precisions: $(cat p.err)"
  "$bin" --precision fp8 --out x > /dev/null 2> p.err; grep -q "^tapegrad-depth: --precision: " p.err || fail "not --precision: $(cat p.err)"
  one=(--placements pre --depths 2 --widths 4 --lrs 0.01 --warmups 0 --steps 3 --batch 8 --train-size 64)
  "$bin" --dump r64 "${one[@]}" > d64.log || fail "fp64 dump failed"
  grep -q "Replay: /usr/bin/python3 tools/replay_torch.py r64" d64.log || fail "no replay command for fp64: $(cat d64.log)"
  "$bin" --dump r16 "${one[@]}" --precisions fp16 > d16.log || fail "fp16 dump failed"
  ! grep -q "Replay:" d16.log || fail "an fp16 dump offers a replay that refuses: $(cat d16.log)"
  ;;
bad_args)
  expect2() {  # expect2 "message" args...: exit status 2, message on stderr, nothing written
    local msg="$1"; shift
    "$bin" "$@" > out.log 2> err.log; local s=$?
    [ $s -eq 2 ] || fail "'$*' exited $s, expected 2"
    grep -q -- "$msg" err.log || fail "'$*' did not say '$msg': $(cat err.log)"
  }
  expect2 "--placements: expected one of post, pre, deepnorm, rezero, sandwich, none, got 'postnorm'" --placements post,postnorm --out x
  expect2 "a depth (number of blocks) must be between 1 and 1024, got 0" --depths 0,2 --out x
  expect2 "learning rate must be a finite number > 0" --lrs -0.01 --out x
  expect2 "learning rate must be a finite number > 0" --lrs 0 --out x
  expect2 "expected i/n" --shard 2/2 --out x
  expect2 "expected i/n" --shard two --out x
  expect2 "--batch: a batch size must be at most the train set size (64), got 100" --batch 100 --train-size 64 --out x
  expect2 "repeats a value" --depths 2,2 --out x
  expect2 "The following argument was not expected" --no-such-option
  expect2 "--depths: 'two' is not a whole number" --depths two
  expect2 "--lrs: '1e-3x' is not a number" --lrs 1e-3x
  # Negative and huge numbers for every count: refused with the range, before any work.
  expect2 "a depth (number of blocks) must be between 1 and 1024, got -4" --depths -4 --out x
  expect2 "a depth (number of blocks) must be between 1 and 1024, got 1025" --depths 1025 --out x
  expect2 "a width must be between 1 and 4096, got -1" --widths -1 --out x
  expect2 "the train set size must be between 1 and 1000000, got -1" --train-size -1 --out x
  expect2 "the eval set size must be between 1 and 1000000, got -1" --eval-size -1 --out x
  expect2 "the eval set size must be between 1 and 1000000, got 10000000" --eval-size 10000000 --out x
  expect2 "a seed must be between 0 and" --seeds -1 --out x
  expect2 "the number of threads must be between 1 and 256, got -1" --jobs -1 --out x
  expect2 "the number of threads must be between 1 and 256, got 0" --jobs 0 --out x
  expect2 "the number of steps must be between 1 and 1000000, got -3" --steps -3 --out x
  expect2 "a warmup (in steps) must be between 0 and 1000000, got -5" --warmups -5 --out x
  expect2 "the eval interval must be between 1 and 1000000, got -1" --eval-every -1 --out x
  expect2 "--batch: a batch size must be between 1 and 1000000, got -1" --batch -1 --out x
  expect2 "a depth (number of blocks) must be between 1 and 1024" --depths 99999999999999999999999 --out x
  expect2 "MiB (more than the limit of 4096 MiB per run)" --depths 1000 --widths 4096 --out x
  expect2 "more than 100000 runs" --seeds $(seq -s, 0 999) --depths $(seq -s, 1 101) --out x
  expect2 "--allow-partial is an option of merge only" --allow-partial --out x
  # The architecture options: each bad value refused with what is expected.
  expect2 "--arch: expected one of ffn, transformer, got 'rnn'" --arch rnn --out x
  expect2 "--init: expected one of pytorch, xavier, got 'he'" --init he --out x
  expect2 "--norm: expected one of layer, rms, batch, got 'group'" --norm group --out x
  expect2 "--activation: expected one of relu, gelu, gelu_tanh, silu, swiglu, got 'tanh'" --activation tanh --out x
  expect2 "the FFN width multiplier must be between 1 and 64, got 0" --ffn-mult 0 --out x
  expect2 "the FFN width multiplier must be between 1 and 64, got -2" --ffn-mult -2 --out x
  expect2 "the number of heads must be between 1 and 4096, got 0" --arch transformer --heads 0 --out x
  expect2 "the sequence length must be between 1 and 1024, got 5000" --arch transformer --seq-len 5000 --out x
  expect2 "--heads: 3 does not divide the width 32" --arch transformer --heads 3 --out x
  expect2 "--heads: 4 does not divide the width 6" --preset transformer --widths 32,6 --out x
  expect2 "--heads applies to --arch transformer only" --heads 2 --out x
  expect2 "--seq-len applies to --arch transformer only" --seq-len 8 --out x
  expect2 "--preset: transformer2 not in {default,transformer,llama}" --preset transformer2 --out x
  expect2 "MiB (more than the limit of 4096 MiB per run)" --arch transformer --seq-len 1024 --depths 64 --out x
  [ ! -e x ] || fail "a bad command line must not create the output folder"
  # A bad command on an existing results folder touches nothing in it (runs/, sweep.json, the CSVs).
  "$bin" "${tiny[@]}" --out kept > /dev/null || fail "sweep 'kept' failed"
  before=$(tree_sum kept)
  for bad in "--widths -1" "--depths -4" "--jobs -1" "--train-size -1" "--shard 3/2" "--steps 13 --resume" \
             "--placements postnorm" "--dump kept"; do
    "$bin" "${tiny[@]}" $bad --out kept > /dev/null 2>&1; s=$?
    [ $s -eq 2 ] || fail "'$bad' on a results folder exited $s, expected 2"
    [ "$(tree_sum kept)" = "$before" ] || fail "'$bad' changed the results folder 'kept'"
  done
  touch afile
  expect2 "cannot create the output folder 'afile/sub'" "${tiny[@]}" --out afile/sub
  mkdir ro && chmod 555 ro
  if [ "$(id -u)" != 0 ]; then expect2 "not writable" "${tiny[@]}" --out ro; fi
  expect2 "--dump records one run" --dump d
  expect2 "not a results folder" merge m nowhere
  "$bin" --help > help.log || fail "--help should exit 0"
  for opt in --placements --depths --lrs --warmups --seeds --widths --steps --batch --train-size --eval-size \
             --eval-every --jobs --resume --shard --dump --no-plots merge --arch --init --norm --activation \
             --ffn-mult --heads --seq-len --preset; do
    grep -q -- "$opt" help.log || fail "--help does not document $opt"
  done
  grep -q "depth <= 1024, width <= 4096, steps, warmup and eval-every <= 1000000, train and eval size <= 1000000, jobs <= 256, at most 100000 runs, and 4 GiB" help.log ||
    fail "--help does not state the limits the checks enforce"
  ;;
dump)
  "$bin" --dump rec --placements deepnorm --depths 2 --widths 4 --lrs 0.01 --warmups 3 --steps 7 --batch 8 \
    --train-size 64 > dump.log || fail "dump failed: $(cat dump.log)"
  for f in config.json x.npy y.npy batches.npy losses.npy input.weight.npy input.bias.npy \
           blocks.0.ffn.fc1.weight.npy blocks.1.ffn.fc2.bias.npy blocks.1.norm.weight.npy head.weight.npy; do
    [ -s "rec/$f" ] || fail "the record lacks $f"
  done
  [ ! -e rec/final_norm.weight.npy ] || fail "deepnorm has no final norm"
  # A Transformer record: its options in config.json, the tokens and per-position labels.
  "$bin" --dump trec --arch transformer --heads 2 --seq-len 5 --init xavier --norm rms --activation gelu \
    --ffn-mult 2 --placements pre --depths 2 --widths 4 --lrs 0.01 --warmups 0 --steps 7 --batch 8 --train-size 64 \
    > tdump.log || fail "transformer dump failed: $(cat tdump.log)"
  for f in token_embedding.weight.npy position_embedding.weight.npy blocks.1.attn.self_attn.in_proj_weight.npy \
           blocks.0.attn.self_attn.out_proj.bias.npy blocks.1.ffn.ffn.fc2.weight.npy final_norm.weight.npy; do
    [ -s "trec/$f" ] || fail "the transformer record lacks $f"
  done
  for field in '"arch": "transformer"' '"init": "xavier"' '"norm": "rms"' '"activation": "gelu"' '"ffn_mult": 2' \
               '"heads": 2' '"seq_len": 5' '"ffn_hidden": 8'; do
    grep -q "$field" trec/config.json || fail "trec/config.json lacks $field"
  done
  head -c 80 trec/y.npy | grep -q "'descr': '<i8'.*'shape': (64, 5)" || fail "y.npy is not int64 (64, 5)"
  # --preset transformer fills in what is not given (the values --help states), the options given win.
  "$bin" --preset transformer --dump prec --placements pre --depths 2 --lrs 0.001 --warmups 0 --seeds 1 --steps 3 \
    > pdump.log || fail "preset dump failed: $(cat pdump.log)"
  for field in '"arch": "transformer"' '"init": "xavier"' '"d": 32' '"batch": 16' '"seq_len": 8' '"heads": 4' \
               '"train_size": 1024' '"eval_size": 256' '"steps": 3' '"seed": 1' '"placement": "pre"'; do
    grep -q "$field" prec/config.json || fail "the preset's record lacks $field"
  done
  "$bin" --help | tr -s ' \n' ' ' > help.txt
  grep -q -- "--arch transformer --init xavier --placements post,pre,deepnorm,rezero --depths 2,6,12,24 --lrs 1e-3,3e-3 --warmups 0,100 --seeds 0,1,2 --widths 32 --heads 4 --seq-len 8 --steps 200 --batch 16 --train-size 1024 --eval-size 256" help.txt ||
    fail "--help does not state the preset's sweep"
  # ... and the sweep it runs is that one (shard 0/192 runs only the first of its 192 runs).
  "$bin" --preset transformer --shard 0/192 --steps 2 --no-plots --out psweep > psweep.log || fail "preset shard failed"
  grep -q "shard 0/192 of 192)" psweep.log || fail "the preset should give 192 runs: $(cat psweep.log)"
  tr -d ' \n' < psweep/sweep.json > sweep.txt
  for field in '"placements":\["post","pre","deepnorm","rezero"\]' '"lrs":\[0.001,0.003\]' '"warmups":\[0,100\]' \
               '"depths":\[2,6,12,24\]' '"widths":\[32\]' '"batches":\[16\]' '"seeds":\[0,1,2\]' '"arch":"transformer"'; do
    grep -q "$field" sweep.txt || fail "the preset's sweep.json lacks $field: $(cat sweep.txt)"
  done
  # --preset llama: the same sweep with LLaMA's block and the two placements (96 runs); --dump alone records seed 0.
  "$bin" --preset llama --dump lrec --placements pre --depths 2 --lrs 0.001 --warmups 0 --steps 3 \
    > ldump.log || fail "llama preset dump failed: $(cat ldump.log)"
  for field in '"norm": "rms"' '"activation": "swiglu"' '"positions": "rope"' '"kv_heads": 2' '"seed": 0' \
               '"ffn_hidden": 88'; do
    grep -q "$field" lrec/config.json || fail "the llama preset's record lacks $field: $(cat lrec/config.json)"
  done
  [ ! -e lrec/position_embedding.weight.npy ] || fail "a RoPE model has no position table"
  [ -e lrec/blocks.0.attn.self_attn.k_proj.weight.npy ] || fail "the llama record lacks k_proj"
  "$bin" --preset llama --shard 0/96 --steps 2 --no-plots --out lsweep > lsweep.log || fail "llama preset shard failed"
  grep -q "shard 0/96 of 96)" lsweep.log || fail "the llama preset should give 96 runs: $(cat lsweep.log)"
  grep -q '"placement": "deepnorm"' rec/config.json || fail "config.json lacks the placement"
  # batches.npy: int64 (7, 8)
  head -c 80 rec/batches.npy | grep -q "'descr': '<i8'.*'shape': (7, 8)" || fail "batches.npy is not int64 (7, 8)"
  ;;
plots)
  "$bin" "${plotted[@]}" --out p > p.log 2> p.err || fail "sweep with plots failed"
  figures=(eval_vs_depth init_grads last_block_grad output_change curves_lr0.01_w0 curves_lr0.01_w5)
  for f in "${figures[@]/%/.gp}" summary.txt sweep.json output_change.csv; do
    [ -s "p/$f" ] || fail "missing p/$f"
  done
  # What a reader needs on the figures themselves.
  grep -q "title 'chance: ln K = ln 8 = 2.079'" p/curves_lr0.01_w0.gp || fail "no labelled chance line on the curves"
  grep -q "title 'chance: ln K = ln 8 = 2.079'" p/eval_vs_depth.gp || fail "no labelled chance line on eval_vs_depth"
  grep -q "one run per line: seed 0, d = 4, batch 8, 12 steps" p/curves_lr0.01_w0.gp || fail "the curves do not say which run"
  grep -q "one run per point: seed 0, d = 4" p/eval_vs_depth.gp || fail "eval_vs_depth does not say what a point is"
  grep -q "sqrt(1/x) with lines" p/last_block_grad.gp || fail "no 1/sqrt(L) reference on last_block_grad"
  if command -v gnuplot > /dev/null; then
    for f in "${figures[@]/%/.png}"; do
      head -c 4 "p/$f" | grep -q PNG || fail "p/$f is not a PNG: $(cat p.err)"
    done
    # No point on the frame: redraw each figure on a text terminal and print, after every panel, the
    # extent of its data and its axis ranges (gnuplot's GPVAL_*); the data must lie strictly inside.
    for f in "${figures[@]}"; do
      awk '/^set terminal/ { print "set terminal dumb size 240,100"; next }
           /^set output/ { print "set output \"/dev/null\""; next }
           { print }
           /^plot / { inplot = 1 }
           inplot && !/\\$/ { inplot = 0
             print "print sprintf(\"FRAME %.12g %.12g %.12g %.12g %.12g %.12g %.12g %.12g\", GPVAL_DATA_X_MIN, GPVAL_DATA_X_MAX, GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_DATA_Y_MIN, GPVAL_DATA_Y_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX)" }' \
        "p/$f.gp" > "p/frame_$f.gp"
      (cd p && gnuplot "frame_$f.gp") > /dev/null 2> "frame_$f.log" || fail "gnuplot failed on $f: $(cat "frame_$f.log")"
      ! grep -qi warning "frame_$f.log" || fail "gnuplot warns on $f: $(cat "frame_$f.log")"
      [ "$(grep -c '^FRAME' "frame_$f.log")" -eq "$(grep -c '^plot ' "p/$f.gp")" ] || fail "$f: not every panel reported"
      awk '/^FRAME/ && !($2 > $4 && $3 < $5 && $6 > $8 && $7 < $9) { print; bad = 1 } END { exit bad }' \
        "frame_$f.log" > "frame_$f.bad" || fail "$f: a point on the frame (data x, axis x, data y, axis y): $(cat "frame_$f.bad")"
    done
  fi
  # Without gnuplot: a warning, the scripts, no failure.
  PATH=/nonexistent "$bin" "${plotted[@]}" --out q > q.log 2> q.err || fail "sweep without gnuplot failed"
  grep -q "gnuplot not found" q.err || fail "no warning without gnuplot"
  [ -s q/eval_vs_depth.gp ] || fail "scripts not written without gnuplot"
  ;;
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
