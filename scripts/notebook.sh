#!/usr/bin/env bash
# Opens the notebooks in Jupyter with tapegrad's C++17 kernel (tapegrad-xcpp, kernelspec xcpp17).
#   scripts/notebook.sh [port]       installs what is missing (scripts/deps.sh notebook), builds
#                                    the library and the kernel into build/, and starts Debian's
#                                    Jupyter Notebook on notebooks/, bound to 127.0.0.1; open the
#                                    URL it prints (it carries the login token). Ctrl-C stops it.
#   scripts/notebook.sh --lang zh    the lessons in Chinese (notebooks/zh/; also TAPEGRAD_LANG=zh)
#   scripts/notebook.sh --check      the same, but only checks that the server lists the xcpp17
#                                    kernel, then stops the server (the test suite runs this).
# The kernelspec is found through JUPYTER_PATH=<build>/share/jupyter; nothing is installed
# into your home folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TAPEGRAD_BUILD_DIR:-$root/build}"
check=0
port=8888
lang="${TAPEGRAD_LANG:-en}"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1; port=0 ;;
    --lang) [ $# -ge 2 ] || { echo "notebook.sh: --lang needs en or zh" >&2; exit 2; }; lang="$2"; shift ;;
    --lang=*) lang="${1#--lang=}" ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) port="$1" ;;
    *) echo "notebook.sh: unknown argument $1 (usage: scripts/notebook.sh [--lang en|zh] [--check] [port])" >&2; exit 2 ;;
  esac
  shift
done
# The Chinese lessons are notebooks/zh/ (same code; their paths are one folder deeper).
case "$lang" in
  zh*) notebook_dir="$root/notebooks/zh" ;;
  en*|C|POSIX|"") notebook_dir="$root/notebooks" ;;
  *) echo "notebook.sh: --lang $lang: expected en or zh" >&2; exit 2 ;;
esac

# (TAPEGRAD_NOTEBOOK_SKIP_BUILD=1: the test suite, which has just built both, skips this step.)
if [ "${TAPEGRAD_NOTEBOOK_SKIP_BUILD:-0}" != 1 ]; then
  "$root/scripts/deps.sh" notebook
  TAPEGRAD_BUILD_DIR="$build" TAPEGRAD_BUILD_TARGET=tapegrad "$root/scripts/build.sh"
  cmake --build "$build" --target tapegrad-xcpp -j "$(nproc)"
fi
if [ ! -f "$build/share/jupyter/kernels/xcpp17/kernel.json" ]; then
  echo "notebook.sh: no kernel in $build: its packages are missing (scripts/deps.sh notebook)" >&2
  exit 1
fi
export JUPYTER_PATH="$build/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
# Jupyter's own files (the server's and kernels' connection files) in the build too, not in ~/.local/share/jupyter
# (and its notebook-trust database, which goes into the data folder: the kernelspecs come from JUPYTER_PATH).
export JUPYTER_RUNTIME_DIR="${JUPYTER_RUNTIME_DIR:-$build/jupyter/runtime}"
export JUPYTER_DATA_DIR="${JUPYTER_DATA_DIR:-$build/jupyter/data}"
# Debian's Python has the Jupyter packages (a python3 earlier on PATH may not).
python=/usr/bin/python3
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-root)

if [ "$check" = 0 ]; then
  echo "== Jupyter Notebook on $notebook_dir; pick the kernel \"C++17\" (tapegrad-xcpp)"
  exec "$python" -m notebook --no-browser --ip=127.0.0.1 --port="$port" --notebook-dir="$notebook_dir" \
    "${root_flag[@]}"
fi

# --check: start the server on a free port with a token, ask it for its kernels, stop it by its pid.
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
work=$(mktemp -d)
JUPYTER_RUNTIME_DIR="$work" "$python" -m notebook --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 \
  --NotebookApp.token="$token" --notebook-dir="$notebook_dir" "${root_flag[@]}" >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 120); do
  if specs=$("$python" -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
               "http://127.0.0.1:$port/api/kernelspecs?token=$token" 2>/dev/null); then
    if printf '%s' "$specs" | grep -q '"xcpp17"' && printf '%s' "$specs" | grep -q 'tapegrad-xcpp'; then
      # ... and serves the lessons of the language asked for (the first lesson, in its folder).
      contents=$("$python" -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
                   "http://127.0.0.1:$port/api/contents?token=$token")
      if ! printf '%s' "$contents" | grep -q '"01_tensors_and_tape.ipynb"'; then
        echo "notebook.sh --check: the server on $notebook_dir does not list 01_tensors_and_tape.ipynb" >&2
        exit 1
      fi
      echo "notebook.sh --check: the server on 127.0.0.1 lists the xcpp17 kernel (tapegrad-xcpp) and the lessons in ${notebook_dir#$root/}"
      exit 0
    fi
    echo "notebook.sh --check: the server does not list the xcpp17 kernel: $specs" >&2
    exit 1
  fi
  sleep 0.5
done
echo "notebook.sh --check: the server did not answer; its log:" >&2
cat "$work/server.log" >&2
exit 1
