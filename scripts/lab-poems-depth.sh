#!/usr/bin/env bash
# Depth stability on real text (docs/lab.md, "Depth stability on the Tang poems"): the Transformer lab's depth
# sweep, both block styles (--preset transformer: GPT-2-style LayerNorm, ReLU FFN and learned positions;
# --preset llama: RMSNorm, SwiGLU, RoPE, grouped key/value heads), on --task poems (character-level language
# modelling of fortunes-zh's 唐诗三百首) instead of the copy task. The presets' model and budget (d = 32, 4 heads,
# 8-character windows, batch 16, 200 steps, depths 2, 6, 12, 24, 3 seeds, warmup 0 and 100), at the default FFN
# sweep's learning rates 3e-3 and 1e-2 (the presets' 1e-3 does not beat the bigram baseline in 200 steps at any
# depth). The verdict of a depth is the median seed's final validation loss against the corpus's baselines: trained
# below the midpoint of the unigram and bigram ones, collapsed above the unigram's (lab/include/tapegrad/lab/text_run.hpp
# says why).
# Quick (default): Post-Norm and Pre-Norm in both styles, 192 runs (its time: docs/lab/poems_depth.txt).
# --full: also the transformer preset's DeepNorm and ReZero, and Sandwich and no norm (+ 192 runs).
# Usage: scripts/lab-poems-depth.sh [--full] [OUT]   (default OUT: results/poems-depth; -j 2)
# Writes OUT/transformer and OUT/llama (each a sweep's folder: summary.txt, index.html, eval_vs_depth.png, ...) and
# OUT/poems_depth_runs.csv. Prints both summaries, the runs that went NaN/Inf or collapsed where their cell's median trained (the seeds'
# chaos) and the time; docs/lab/poems_depth.txt is this output (lab.poems_depth checks it against docs/lab.md and
# re-runs a few of its runs against docs/lab/poems_depth_runs.csv, the runs' final losses).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
out="${1:-results/poems-depth}"
depth="${TAPEGRAD_BUILD_DIR:-$root/build}/lab/tapegrad-depth"
[ -x "$depth" ] || "$root/scripts/lab.sh" --help > /dev/null  # installs what is missing and builds it
export OPENBLAS_NUM_THREADS=1
gpt_placements=post,pre
if [ "$full" = 1 ]; then gpt_placements=post,pre,deepnorm,rezero,sandwich,none; fi
common=(--task poems --lrs 3e-3,1e-2 --no-plots -j "${TAPEGRAD_JOBS:-2}")
start=$(date +%s)
cpu_before=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
"$depth" --preset transformer --placements "$gpt_placements" --out "$out/transformer" "${common[@]}" > "$out.transformer.log" 2>&1 ||
  { tail "$out.transformer.log"; exit 1; }
"$depth" --preset llama --out "$out/llama" "${common[@]}" > "$out.llama.log" 2>&1 || { tail "$out.llama.log"; exit 1; }
cpu_after=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
wall=$(( $(date +%s) - start ))
cpu=$(( (cpu_after - cpu_before) / $(getconf CLK_TCK) ))
for style in transformer llama; do  # the plots and index.html of each (the sweeps ran with --no-plots: one pass)
  "$depth" report "$out/$style" > "$out.$style.report.log" 2>&1 || { tail "$out.$style.report.log"; exit 1; }
done
for style in transformer llama; do
  echo "--preset $style --task poems:"
  cat "$out/$style/summary.txt"
  echo
done
/usr/bin/python3 "$root/tools/poems_depth.py" runs "$out"/transformer/runs.csv "$out"/llama/runs.csv > "$out/poems_depth_runs.csv"
echo "Final validation bits per character, seeds 0 / 1 / 2 (* = collapsed):"
/usr/bin/python3 "$root/tools/poems_depth.py" table "$out/poems_depth_runs.csv"
echo
/usr/bin/python3 "$root/tools/poems_depth.py" chaos "$out/poems_depth_runs.csv" "$out/transformer/summary.txt"
echo "$(( $(wc -l < "$out/poems_depth_runs.csv") - 1 )) runs in $cpu CPU-seconds ($wall s on the clock)"
