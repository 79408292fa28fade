#!/bin/sh
# tapegrad against PyTorch (float64, one thread), side by side: prints a table of ratios.
#
#   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_BUILD_BENCH=ON
#   make -C build-bench -j2 tapegrad_bench tapegrad_peak_memory
#   bench/run.sh [build-dir] [rounds] [repetitions] [pairs]   (defaults: build-bench, 4, 3, 12)
#
# The machine may be shared, so the two sides run in alternating rounds (tapegrad,
# then torch, `rounds` times). In a round each side times every workload `repetitions`
# times and keeps the fastest (other work only ever adds time); the table shows medians
# over the rounds. Times are process CPU time, not wall time. Raw results stay in the
# printed directory.
#
# A round takes minutes, and this machine's speed drifts over minutes, so the training
# step (the target ratio) is also timed in `pairs` short paired rounds: the two sides
# back to back, seconds apart, in alternating order, only that workload.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build-bench}
rounds=${2:-4}
repetitions=${3:-3}
pairs=${4:-12}
python=/usr/bin/python3  # Debian's, which has torch
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Both sides free and re-allocate every activation each step. By default glibc hands
# freed memory back to the kernel (trim) and maps 128 KiB+ blocks afresh (mmap), so each
# step pays page faults to get it back; these tunables keep it in the process (mmap_max=0:
# never mmap, since even the largest threshold allowed, 32 MiB, would still map the
# 4096 x 1024 layer_norm arrays). Same for both sides; TAPEGRAD_BENCH_MALLOC=default runs
# with glibc's defaults instead.
if [ "${TAPEGRAD_BENCH_MALLOC:-}" != default ]; then
  export GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_max=0
fi
out=$(mktemp -d /tmp/tapegrad-bench.XXXXXX)
echo "raw results in $out" >&2

for i in $(seq "$rounds"); do
  echo "round $i/$rounds" >&2
  "$build/bench/tapegrad_bench" --benchmark_repetitions="$repetitions" \
    --benchmark_out="$out/tapegrad_$i.json" --benchmark_out_format=json >/dev/null
  "$python" "$here/compare_torch.py" --repetitions "$repetitions" >"$out/torch_$i.json"
done

for i in $(seq "$pairs"); do
  echo "paired training-step round $i/$pairs" >&2
  tapegrad_side() {
    "$build/bench/tapegrad_bench" --benchmark_filter='^BM_TrainStep_(Pre|Post)/16/64/' \
      --benchmark_repetitions="$repetitions" --benchmark_out="$out/pair_tapegrad_$i.json" \
      --benchmark_out_format=json >/dev/null
  }
  torch_side() { "$python" "$here/compare_torch.py" --train-step-only --repetitions "$repetitions" >"$out/pair_torch_$i.json"; }
  if [ $((i % 2)) -eq 1 ]; then tapegrad_side; torch_side; else torch_side; tapegrad_side; fi
done

# Peak memory: one process per configuration (ru_maxrss is per process).
for cfg in "pre 2 64" "pre 4 64" "pre 8 64" "pre 16 64" "pre 32 64" "pre 64 64" "pre 16 16" "pre 16 256"; do
  # shellcheck disable=SC2086  # cfg is three words on purpose
  "$build/bench/tapegrad_peak_memory" $cfg 5 >>"$out/tapegrad_memory.jsonl"
  # shellcheck disable=SC2086
  "$python" "$here/compare_torch.py" --peak-memory $cfg 5 >>"$out/torch_memory.jsonl"
done
"$build/bench/tapegrad_peak_memory" growth >"$out/growth.json" || true  # the report says if it failed

"$python" "$here/report.py" "$out"
