#!/usr/bin/env bash
# Makes sure the Debian packages tapegrad needs are installed.
#   scripts/deps.sh build|test|lab|kernel|notebook
# As root it installs what is missing (apt-get update once, then apt-get install);
# otherwise it prints the exact command to run and exits with status 1.
# If another apt/dpkg holds the lock (unattended-upgrades, a second deps.sh), it waits for
# it, up to $TAPEGRAD_APT_LOCK_TIMEOUT seconds (default 600), instead of failing.
set -euo pipefail
lock_timeout="${TAPEGRAD_APT_LOCK_TIMEOUT:-600}"

build=(cmake make g++ pkg-config libxtensor-dev libxtensor-blas-dev libopenblas-dev
       catch2 libcli11-dev nlohmann-json3-dev ccache
       libgraphviz-dev)  # draw(): Graphviz's layout library
# fonts-noto-cjk: the Chinese plots and page (--lang zh); fortunes-zh and fortunes: the text tasks' corpora
# (tapegrad-depth poems: the Tang poems, /usr/share/games/fortunes/tang300, and English fortunes).
lab=(gnuplot-nox fonts-noto-cjk fortunes-zh fortunes)
# The notebooks' Jupyter kernel (kernel/): xeus 2.4.1 and clang 22's incremental interpreter.
kernel=(xeus-dev libzmq3-dev libclang-22-dev libclang-cpp22-dev llvm-22-dev clang-22 libclang-common-22-dev)
# Running the notebooks: nbclient and jupyter_client (the tests), the classic notebook page
# (scripts/notebook.sh), headless Chromium and the DevTools protocol client (the browser test).
notebook=(python3 python3-nbclient python3-nbformat jupyter-client jupyter-notebook chromium python3-websocket)
# tests/cluster: a one-node Slurm and GNU parallel.
cluster=(munge slurmctld slurmd slurm-client parallel)
test=(gnuplot-nox graphviz gdb lldb-22 "${kernel[@]}" "${notebook[@]}" "${cluster[@]}")

case "${1:-build}" in
  build) wanted=("${build[@]}") ;;
  lab)   wanted=("${build[@]}" "${lab[@]}") ;;
  kernel|notebook) wanted=("${build[@]}" "${lab[@]}" "${kernel[@]}" "${notebook[@]}") ;;
  test)  wanted=("${build[@]}" "${lab[@]}" "${test[@]}") ;;
  *) echo "usage: scripts/deps.sh build|test|lab|kernel|notebook" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "== installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # apt-get install waits for the dpkg lock by itself (DPkg::Lock::Timeout); apt-get update
  # does not wait for the lists lock (apt 2.6), so it is retried while that lock is held.
  waited=0
  until log=$(apt-get -o DPkg::Lock::Timeout="$lock_timeout" update -qq 2>&1); do
    if ! grep -q "Could not get lock" <<<"$log" || [ "$waited" -ge "$lock_timeout" ]; then echo "$log" >&2; exit 1; fi
    [ "$waited" -eq 0 ] && echo "== another apt/dpkg holds the lock; waiting for it (up to $lock_timeout s)" >&2
    sleep 2; waited=$((waited + 2))
  done
  apt-get -o DPkg::Lock::Timeout="$lock_timeout" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "tapegrad needs these Debian packages; install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
