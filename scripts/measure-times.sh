#!/usr/bin/env bash
# Measures how long the documented long commands take, and writes docs/lab/times.txt: the one place those
# figures are written. docs/performance.md shows them ("How long the commands take", checked against this file by
# ctest -R docs.times), the other docs point there, and tapegrad-depth --help computes its estimates from the
# per-run costs in it (lab/CMakeLists.txt reads it).
#   scripts/measure-times.sh [NAME...]   (default: all; NAME: default-sweep transformer-preset lab-papers
#                                         lab-init-profile lab-precision lab-widths lab-poems-depth
#                                         lab-poems-depth-full debug-build)
# TAPEGRAD_TIMES_KEEP=DIR keeps each command's output folder and its printout (DIR/NAME.log) in DIR: the
# measured run is then also the one whose results are committed (scripts/lab-poems-depth.sh's printout is
# docs/lab/poems_depth.txt).
# Each is timed once as CPU time (user + sys of every process, which other work on the machine hardly changes)
# and wall time (which it does: the load average is recorded beside it). Needs the default build (build/).
# Measuring all of them takes the sum of the file's CPU column.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
file="$root/docs/lab/times.txt"
depth="$root/build/lab/tapegrad-depth"
[ -x "$depth" ] || { echo "measure-times.sh: build first ($depth is missing: scripts/build.sh)" >&2; exit 1; }
if [ -n "${TAPEGRAD_TIMES_KEEP:-}" ]; then
  scratch=$TAPEGRAD_TIMES_KEEP
  mkdir -p "$scratch"
else
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
fi
export OPENBLAS_NUM_THREADS=1
all=(default-sweep transformer-preset lab-papers lab-init-profile lab-precision lab-widths lab-poems-depth
     lab-poems-depth-full debug-build)
names=("$@")
((${#names[@]})) || names=("${all[@]}")

runs_of() {  # the number of runs each command trains (debug-build: none)
  case "$1" in
    default-sweep) echo 360 ;; transformer-preset) echo 192 ;; lab-papers) echo 16 ;;
    lab-init-profile) echo 32 ;; lab-precision) echo 196 ;; lab-widths) echo 231 ;; lab-poems-depth) echo 192 ;;
    lab-poems-depth-full) echo 384 ;;
    debug-build) echo 0 ;;
  esac
}

run() {  # the command of each name, run in the scratch folder
  case "$1" in
    default-sweep) "$depth" --no-plots --out "$scratch/default" ;;
    transformer-preset) "$depth" --preset transformer --no-plots --out "$scratch/transformer" ;;
    lab-papers) "$root/scripts/lab-papers.sh" "$scratch/papers" ;;
    lab-init-profile) "$root/scripts/lab-init-profile.sh" "$scratch/init-profile" ;;
    lab-precision) "$root/scripts/lab-precision.sh" "$scratch/precision" ;;
    lab-widths) "$root/scripts/lab-widths.sh" "$scratch/widths" ;;
    lab-poems-depth) "$root/scripts/lab-poems-depth.sh" "$scratch/poems-depth" ;;
    lab-poems-depth-full) "$root/scripts/lab-poems-depth.sh" --full "$scratch/poems-depth-full" ;;
    # What scripts/debug.sh builds on a fresh clone: the debug preset, the library and one example, no ccache.
    debug-build) CCACHE_DISABLE=1 TAPEGRAD_DEBUG_BUILD_DIR="$scratch/build-debug" "$root/scripts/debug.sh" \
                   layer_norm_by_hand -- -batch -ex quit ;;
  esac
}

declare -A line
if [ -f "$file" ]; then  # the figures not measured this time are kept
  while read -r name rest; do [[ "$name" == \#* || -z "$name" ]] || line[$name]="$name $rest"; done < "$file"
fi
for name in "${names[@]}"; do
  [ -n "$(runs_of "$name")" ] || { echo "measure-times.sh: no command '$name': one of ${all[*]}" >&2; exit 2; }
done
load_before=$(cut -d' ' -f1 /proc/loadavg)
for name in "${names[@]}"; do
  echo "measure-times.sh: $name ..." >&2
  load=$(cut -d' ' -f1 /proc/loadavg)
  # bash's `times` gives the CPU time of this shell's children: user and sys, before and after.
  start=$(date +%s.%N)
  ( run "$name" > "$scratch/$name.log" 2>&1; times > "$scratch/$name.times" ) ||
    { echo "measure-times.sh: $name failed:" >&2; tail -20 "$scratch/$name.log" >&2; exit 1; }
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  cpu=$(sed -n 2p "$scratch/$name.times" | awk '{ n = 0; for (i = 1; i <= 2; ++i) { split($i, t, "m"); n += t[1] * 60 + t[2] } printf "%.1f", n }')
  line[$name]=$(printf '%s %s %s %.1f %s' "$name" "$(runs_of "$name")" "$cpu" "$wall" "$load")
  echo "measure-times.sh: ${line[$name]}" >&2
done
{
  echo "# How long the documented long commands take: written by scripts/measure-times.sh (do not edit by hand)."
  echo "# name, runs trained, CPU seconds (user + sys), wall seconds, load average when it started;"
  echo "# Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), load average $load_before at the start"
  for name in "${all[@]}"; do [ -n "${line[$name]:-}" ] && echo "${line[$name]}"; done
} > "$file.tmp"
mv "$file.tmp" "$file"
/usr/bin/python3 "$root/tests/docs/times_test.py" --source-dir "$root" --write > /dev/null || true  # the table
cat "$file"
