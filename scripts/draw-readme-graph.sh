#!/usr/bin/env bash
# Draws the README's picture, docs/tape_graph.svg (a neuron's graph after backward, with its
# gradients), with examples/readme_picture.cpp. The docs test runs it and checks the committed file
# is what it draws.
#   scripts/draw-readme-graph.sh [OUT.svg]     (default docs/tape_graph.svg)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TAPEGRAD_BUILD_DIR:-$root/build}"
out="${1:-$root/docs/tape_graph.svg}"
program="${TAPEGRAD_README_PICTURE:-}"  # the test passes the built program
if [ -z "$program" ]; then
  cmake --build "$build" --target readme_picture >/dev/null
  program="$build/examples/readme_picture"
fi
"$program" "$out"
