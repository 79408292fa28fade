#!/usr/bin/env bash
# Quick start command 1: installs what is missing, builds, runs the main job
# (the default depth-stability experiment). Extra arguments go to the program.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/deps.sh" lab
TAPEGRAD_BUILD_DIR="$root/build" "$root/scripts/build.sh"
if [ -x "$root/build/src/apps/tapegrad-depth" ]; then
  exec "$root/build/src/apps/tapegrad-depth" "$@"
else
  exec "$root/build/examples/quickstart" "$@"
fi
