#!/usr/bin/env bash
# The debugger tour from a fresh clone: builds the example without optimisation (the debug preset,
# build-debug/, only what the example needs) if it is not there yet, then starts gdb (or lldb) on it,
# stopped at the tour's first stop with the pretty-printers loaded.
#   scripts/debug.sh [--lldb] [EXAMPLE] [-- DEBUGGER_ARGS...]
# EXAMPLE: layer_norm_by_hand (default; stops in tapegrad::layer_norm_backward), ffn_by_hand (in
# tapegrad::feed_forward_backward), or any other program of examples/ (stops at main).
# TAPEGRAD_DEBUG_BUILD_DIR: the -O0 build to use instead of build-debug/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${TAPEGRAD_DEBUG_BUILD_DIR:-$root/build-debug}"
debugger=gdb example=layer_norm_by_hand extra=()
while (($#)); do
  case "$1" in
    --lldb) debugger=lldb; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "scripts/debug.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) example="$1"; shift ;;
  esac
done
if [[ ! -f "$root/examples/$example.cpp" ]]; then
  echo "scripts/debug.sh: no example '$example': one of $(cd "$root/examples" && ls ./*.cpp | sed 's#^\./##; s#\.cpp$##' | tr '\n' ' ')" >&2
  exit 2
fi
case "$example" in
  layer_norm_by_hand) stop=tapegrad::layer_norm_backward ;;
  ffn_by_hand) stop=tapegrad::feed_forward_backward ;;
  *) stop="" ;;
esac

program="$dir/examples/$example"
if [[ ! -x "$program" ]]; then
  # How long: measured by scripts/measure-times.sh (docs/lab/times.txt: "debug-build RUNS CPU WALL LOAD").
  cpu=$(awk '$1 == "debug-build" { printf "%.0f", $3 / 60 + 0.5 }' "$root/docs/lab/times.txt" 2> /dev/null || true)
  echo "scripts/debug.sh: $program is not built yet: building the debug preset (-O0 -g, the reference kernels)" \
       "into $dir, the library and $example only, once${cpu:+: about $cpu CPU-minutes (docs/performance.md)}" >&2
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  start=$SECONDS
  cmake --preset debug -S "$root" -B "$dir" "${launcher[@]}" > /dev/null
  cmake --build "$dir" -j "$(nproc)" --target "$example"
  echo "scripts/debug.sh: built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s" >&2
fi

if [[ "$debugger" == gdb ]]; then
  args=(-q -iex "add-auto-load-safe-path $root" -iex "add-auto-load-safe-path $dir" -ex start)
  [[ -n "$stop" ]] && args+=(-ex "break $stop" -ex continue)
  exec gdb "${args[@]}" ${extra[@]+"${extra[@]}"} "$program"
fi
lldb=$(command -v lldb-22 || command -v lldb || true)
[[ -n "$lldb" ]] || { echo "scripts/debug.sh: no lldb-22 (scripts/deps.sh test installs it)" >&2; exit 1; }
args=(-o "command script import $root/tools/lldb/tapegrad_lldb.py")
if [[ -n "$stop" ]]; then args+=(-o "breakpoint set -n $stop" -o run)
else args+=(-o "breakpoint set -n main" -o run); fi
exec "$lldb" "${args[@]}" ${extra[@]+"${extra[@]}"} "$program"
