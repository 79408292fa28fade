#!/usr/bin/env bash
# Quick start command 1: installs what is missing, builds, runs the main job
# (the default depth-stability experiment). Extra arguments go to the program.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/deps.sh" lab
TAPEGRAD_BUILD_DIR="$root/build" TAPEGRAD_BUILD_TARGET=tapegrad-depth "$root/scripts/build.sh"
# Results go to results/depth (relative to where you run this); see --help for the options.
exec "$root/build/lab/tapegrad-depth" "$@"
