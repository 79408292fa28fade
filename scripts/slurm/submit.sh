#!/usr/bin/env bash
# Runs a tapegrad-depth sweep on a Slurm cluster: a job array with one shard per task
# (sweep.sbatch), then a merge job (merge.sbatch) that starts only if every shard succeeded.
#   scripts/slurm/submit.sh [-n SHARDS] [-c CPUS] [-o OUT] [--wait] [--] [sweep options...]
#     -n SHARDS  number of shards = array tasks (default 4)
#     -c CPUS    CPUs per task, given to each shard as --jobs (default 2)
#     -o OUT     merged results (default results/depth); the shards go to OUT.shards/shard-<i>,
#                their logs to OUT.shards/logs/
#     --wait     return only when the merge job has ended, with its exit status
# The sweep options (--placements, --depths, ...) go to every shard unchanged; --no-plots also to merge.
# Running the same command again continues: every shard runs with --resume and skips the runs it finished.
# Partition, account, time limit: sbatch's own variables, e.g. SBATCH_PARTITION=short SBATCH_TIMELIMIT=30.
# The binary: $TAPEGRAD_DEPTH, else build/lab/tapegrad-depth in this repository; the cluster's nodes must
# see it and OUT at the same paths (a shared file system).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }
shards=4 cpus=2 out=results/depth wait=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) shards="${2:?-n needs a number}"; shift 2 ;;
    -c) cpus="${2:?-c needs a number}"; shift 2 ;;
    -o) out="${2:?-o needs a folder}"; shift 2 ;;
    --wait) wait=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: -n wants a number of shards >= 1, got '$shards'" >&2; exit 2; }
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: -c wants a number of CPUs >= 1, got '$cpus'" >&2; exit 2; }
plots=()
for a in "$@"; do
  case "$a" in
    --out|--out=*|-o|--shard|--shard=*|--jobs|--jobs=*|-j*)
      echo "submit.sh: '$a' is set for each shard by this script; use -o OUT, -n SHARDS, -c CPUS before the sweep options" >&2
      exit 2 ;;
    --no-plots) plots=(--no-plots) ;;
  esac
done

command -v sbatch > /dev/null || { echo "submit.sh: sbatch not found: run this on a Slurm login node" >&2; exit 2; }
bin="${TAPEGRAD_DEPTH:-$repo/build/lab/tapegrad-depth}"
[ -x "$bin" ] || { echo "submit.sh: no tapegrad-depth at '$bin' (build it, or set TAPEGRAD_DEPTH)" >&2; exit 2; }
export TAPEGRAD_DEPTH="$(realpath "$bin")" TAPEGRAD_SHARDS="$shards"  # sbatch passes the environment on
out="$(realpath -m "$out")"
mkdir -p "$out.shards/logs"

array=$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="$cpus" \
          --output="$out.shards/logs/shard-%a.out" "$here/sweep.sbatch" "$out" "$@")
array="${array%%;*}"  # --parsable prints jobid[;cluster]
echo "array job $array: $shards shards into $out.shards/shard-<i> (logs: $out.shards/logs/shard-<i>.out)"
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
          --output="$out.shards/logs/merge.out" "$here/merge.sbatch" "$out" "$shards" "${plots[@]}")
merge="${merge%%;*}"
echo "merge job $merge: merges them into $out once every shard has succeeded (log: $out.shards/logs/merge.out)"
[ "$wait" = 1 ] || exit 0

# --wait: poll the merge job until it has ended (it is cancelled if a shard fails).
while :; do
  state=$(scontrol show job -o "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
  case "$state" in
    COMPLETED) echo "merge job $merge: done, results in $out"; exit 0 ;;
    PENDING|CONFIGURING|RUNNING|COMPLETING|REQUEUED|REQUEUE_HOLD|RESIZING|SUSPENDED|STAGE_OUT) sleep 2 ;;
    "") echo "submit.sh: slurm no longer knows merge job $merge; see $out.shards/logs/merge.out" >&2; exit 1 ;;
    *) echo "submit.sh: merge job $merge ended $state (a shard failed or was cancelled?); see $out.shards/logs/;" \
            "the same command again continues where the shards stopped" >&2
       exit 1 ;;
  esac
done
