#!/usr/bin/env bash
# Configures and builds tapegrad into build/ (or $TAPEGRAD_BUILD_DIR).
#   scripts/build.sh [extra cmake args...]
# TAPEGRAD_BUILD_TARGET=<target> builds only that target (and what it needs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${TAPEGRAD_BUILD_DIR:-$root/build}"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)" ${TAPEGRAD_BUILD_TARGET:+--target "$TAPEGRAD_BUILD_TARGET"}
