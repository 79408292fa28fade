#!/usr/bin/env bash
# A tiny GPT on the Tang poems: installs what is missing, builds tapegrad-depth, trains a small LLaMA-style model
# on fortunes-zh's 唐诗三百首 (its time is in docs/lab.md), reports its validation bits per character against the
# unigram and bigram baselines, and writes a poem from a prompt through the KV cache. Extra arguments go to
# `tapegrad-depth poems` (--prompt 床前, --temperature 0.6, --task english, --preset gpt2, --resume, ...; see
# its --help). Results in results/poems (summary.txt, sample.txt, checkpoint/).
#   scripts/poems.sh --doc [options]   also copies the summary to docs/lab/poems_run.txt, or with --task english
#                                      to docs/lab/english_run.txt (docs/lab.md quotes both)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
doc=0
if [ "${1:-}" = "--doc" ]; then doc=1; shift; fi
"$root/scripts/deps.sh" lab
TAPEGRAD_BUILD_DIR="$root/build" TAPEGRAD_BUILD_TARGET=tapegrad-depth "$root/scripts/build.sh"
export OPENBLAS_NUM_THREADS=1
"$root/build/lab/tapegrad-depth" poems --out results/poems "$@"
task=poems
prev=
for arg in "$@"; do
  if [ "$prev" = --task ]; then task=$arg; fi
  case "$arg" in --task=*) task=${arg#--task=} ;; esac
  prev=$arg
done
if [ "$doc" = 1 ]; then cp results/poems/summary.txt "$root/docs/lab/${task}_run.txt"; fi
