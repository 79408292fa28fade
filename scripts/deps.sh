#!/usr/bin/env bash
# Makes sure the Debian packages tapegrad needs are installed.
#   scripts/deps.sh build|test|lab
# As root it installs what is missing (apt-get update once, then apt-get install);
# otherwise it prints the exact command to run and exits with status 1.
set -euo pipefail

build=(cmake make g++ pkg-config libxtensor-dev libxtensor-blas-dev libopenblas-dev
       catch2 libcli11-dev nlohmann-json3-dev ccache)
lab=(gnuplot-nox)
test=(gnuplot-nox graphviz gdb lldb-22 clang-tools-22 python3)

case "${1:-build}" in
  build) wanted=("${build[@]}") ;;
  lab)   wanted=("${build[@]}" "${lab[@]}") ;;
  test)  wanted=("${build[@]}" "${lab[@]}" "${test[@]}") ;;
  *) echo "usage: scripts/deps.sh build|test|lab" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "== installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "tapegrad needs these Debian packages; install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
