#!/usr/bin/env bash
# Runs a tapegrad-depth sweep as shards with GNU parallel, on this machine's cores or over ssh on
# other machines (-S), then merges the shards into results byte-identical to an unsharded sweep's.
#   scripts/sweep-parallel.sh [-n SHARDS] [-j SLOTS] [-t THREADS] [-S HOSTS] [--retries N] [-o OUT]
#                             [--] [sweep options...]
#     -n SHARDS     number of shards (default 4)
#     -j SLOTS      shards running at once on each machine (default: its number of cores)
#     -t THREADS    runs in parallel inside a shard, its --jobs (default 1)
#     -S HOSTS      parallel's --sshlogin, e.g. host1,host2 or 4/host1,: (':' is this machine); the
#                   hosts need the binary and OUT at the same paths (a shared file system)
#     --retries N   start a failed shard up to N times in all (default 2); it resumes, keeping its
#                   finished runs
#     -o OUT        merged results (default results/depth); shards in OUT.shards/shard-<i>,
#                   parallel's job log in OUT.shards/joblog
# The sweep options (--placements, --depths, ...) go to every shard unchanged; --no-plots also to merge.
# Running the same command again continues: every shard runs with --resume.
# The binary: $TAPEGRAD_DEPTH, else build/lab/tapegrad-depth in this repository.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }
shards=4 threads=1 retries=2 out=results/depth where=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) shards="${2:?-n needs a number}"; shift 2 ;;
    -j) where+=(-j "${2:?-j needs a number}"); shift 2 ;;
    -t) threads="${2:?-t needs a number}"; shift 2 ;;
    -S) where+=(-S "${2:?-S needs hosts}"); shift 2 ;;
    --retries) retries="${2:?--retries needs a number}"; shift 2 ;;
    -o) out="${2:?-o needs a folder}"; shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    *) break ;;
  esac
done
for n in "$shards" "$threads" "$retries"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "sweep-parallel.sh: -n, -t and --retries want numbers >= 1, got '$n'" >&2; exit 2; }
done
plots=()
for a in "$@"; do
  case "$a" in
    --out|--out=*|-o|--shard|--shard=*|--jobs|--jobs=*|-j*)
      echo "sweep-parallel.sh: '$a' is set for each shard by this script; use -o OUT, -n SHARDS, -t THREADS" >&2
      exit 2 ;;
    --no-plots) plots=(--no-plots) ;;
  esac
done
command -v parallel > /dev/null || { echo "sweep-parallel.sh: GNU parallel is missing (Debian: apt-get install parallel)" >&2; exit 2; }
bin="${TAPEGRAD_DEPTH:-$repo/build/lab/tapegrad-depth}"
[ -x "$bin" ] || { echo "sweep-parallel.sh: no tapegrad-depth at '$bin' (build it, or set TAPEGRAD_DEPTH)" >&2; exit 2; }
bin="$(realpath "$bin")"
out="$(realpath -m "$out")"
mkdir -p "$out.shards"

# -q quotes the command for the shell (and ssh) so every sweep option arrives as it was given;
# --tag prefixes each output line with its shard number. Each shard draws no plots: merge does.
status=0
parallel -q --tag --line-buffer --retries "$retries" --joblog "$out.shards/joblog" "${where[@]}" \
  "$bin" "$@" --no-plots --shard "{}/$shards" --jobs "$threads" --resume --out "$out.shards/shard-{}" \
  ::: $(seq 0 $((shards - 1))) || status=$?
if [ "$status" -ne 0 ]; then
  echo "sweep-parallel.sh: $status shards failed (see $out.shards/joblog); the same command again resumes them" >&2
  exit 1
fi
dirs=()
for ((i = 0; i < shards; ++i)); do dirs+=("$out.shards/shard-$i"); done
"$bin" "${plots[@]}" merge "$out" "${dirs[@]}"
