#!/bin/sh
# The lab's Transformer training step, tapegrad against PyTorch, side by side in alternating
# rounds (bench_transformer.cpp against bench/compare_torch.py --transformer-only, the same model
# and sizes); prints each side's median time and the median and range of the per-round ratios.
#
#   bench/transformer_vs_torch.sh BUILD [rounds] [llama]      (default 4 rounds; llama: --preset llama's block,
#                                                             BM_LlamaStep_Pre against compare_torch.py --llama-only)
#
# BUILD is a tree configured with -DTAPEGRAD_BUILD_BENCH=ON and `make tapegrad_bench` done.
# In a round each side runs every size 3 times and keeps its fastest; times are process CPU
# time, one thread each. Needs Debian's python3-torch for /usr/bin/python3.
set -eu
build=$1
rounds=${2:-4}
case "${3:-transformer}" in
  transformer) filter='BM_TransformerStep_Pre'; torch_flag=--transformer-only ;;
  llama) filter='BM_LlamaStep_Pre'; torch_flag=--llama-only ;;
  *) echo "transformer_vs_torch.sh: the third argument is transformer or llama, got $3" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_max=0  # as bench/run.sh
out=$(mktemp -d /tmp/tapegrad-transformer.XXXXXX)
echo "raw results in $out" >&2
for i in $(seq "$rounds"); do
  echo "round $i/$rounds" >&2
  if [ $((i % 2)) -eq 1 ]; then order="tapegrad torch"; else order="torch tapegrad"; fi
  for side in $order; do
    if [ "$side" = tapegrad ]; then
      "$build/bench/tapegrad_bench" --benchmark_filter="$filter" --benchmark_repetitions=3 \
        --benchmark_out="$out/tapegrad_$i.json" --benchmark_out_format=json >/dev/null
    else
      /usr/bin/python3 "$here/compare_torch.py" "$torch_flag" --repetitions 3 >"$out/torch_$i.json"
    fi
  done
done
/usr/bin/python3 - "$out" "$rounds" <<'PY'
import json, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for i in range(1, rounds + 1):
    ours = json.load(open(f"{out}/tapegrad_{i}.json"))["benchmarks"]
    theirs = json.load(open(f"{out}/torch_{i}.json"))["transformer_step_s"]
    best = {}
    for b in ours:
        if b.get("run_type") != "iteration":
            continue
        args = re.findall(r"\d+", b["run_name"].split("/", 1)[1])
        key = "/".join(args[:4])
        t = b["cpu_time"] / 1e3  # ms -> s
        best[key] = min(best.get(key, t), t)
    for key, t in best.items():
        rows.setdefault(key, []).append((t, theirs[key]))
print(f"{'L/d/batch/seq':16} {'tapegrad ms':>12} {'PyTorch ms':>11} {'ratio':>7}  range")
for key, pairs in rows.items():
    ratios = [b / a for a, b in pairs]
    print(f"{key:16} {statistics.median(a for a, _ in pairs) * 1e3:12.2f} "
          f"{statistics.median(b for _, b in pairs) * 1e3:11.2f} {statistics.median(ratios):6.2f}x  "
          f"{min(ratios):.2f}-{max(ratios):.2f} ({len(pairs)} rounds)")
PY
