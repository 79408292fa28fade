#!/bin/sh
# Two builds of tapegrad side by side (e.g. before and after a change): the training step,
# layer_norm and the fused FFN, in alternating rounds; prints each one's median time and
# the median and range of the per-round ratios new/old.
#
#   bench/compare_builds.sh OLD_BUILD NEW_BUILD [rounds]     (default 6 rounds)
#
# Each build is a tree configured with -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_BUILD_BENCH=ON and
# `make tapegrad_bench` done. In a round each build runs every workload 3 times and keeps
# its fastest (other work on the machine only ever adds time); times are process CPU time.
set -eu
old=$1
new=$2
rounds=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_max=0  # as bench/run.sh
out=$(mktemp -d /tmp/tapegrad-compare.XXXXXX)
echo "raw results in $out" >&2
for i in $(seq "$rounds"); do
  echo "round $i/$rounds" >&2
  for side in old new; do
    if [ "$side" = old ]; then build=$old; else build=$new; fi
    "$build/bench/tapegrad_bench" --benchmark_filter='BM_TrainStep_(Pre|Post)/|BM_LayerNorm_FwdBwd|BM_FFN_FwdBwd_Fused' \
      --benchmark_repetitions=3 --benchmark_out="$out/${side}_$i.json" --benchmark_out_format=json >/dev/null
  done
done
/usr/bin/python3 "$here/compare_builds.py" "$out"
