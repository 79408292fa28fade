#!/usr/bin/env bash
# scripts/debug.sh, the debugger tour's one command:
#   1. on a fresh clone (no build-debug/): it says that it builds, configures the debug preset and builds the
#      example only, then starts gdb with the printers' safe path and the tour's first stop (fakes of cmake and
#      gdb on PATH: nothing is built);
#   2. on a built program (this build's -O0 tests/tapegrad_gdb_layer_norm_by_hand, standing in for build-debug's):
#      real gdb stops in tapegrad::layer_norm_backward and prints dy through the pretty-printers.
#   debug_script_test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -uo pipefail
src="$1"; build="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work/bin"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Fakes: cmake records its arguments and "builds" the example; gdb records its arguments.
cat > "$work/bin/cmake" <<'FAKE'
#!/usr/bin/env bash
echo "cmake $*" >> "$FAKE_LOG"
if [[ "$1" == --build ]]; then mkdir -p "$2/examples" && printf '#!/bin/sh\n' > "$2/examples/layer_norm_by_hand" && chmod +x "$2/examples/layer_norm_by_hand"; fi
FAKE
printf '#!/usr/bin/env bash\nprintf "gdb %%s|" "$@" >> "$FAKE_LOG"\n' > "$work/bin/gdb"
chmod +x "$work/bin/cmake" "$work/bin/gdb"
export FAKE_LOG="$work/fake.log"
(cd "$src" && PATH="$work/bin:$PATH" TAPEGRAD_DEBUG_BUILD_DIR="$work/fresh" scripts/debug.sh layer_norm_by_hand) \
  > "$work/fresh.out" 2> "$work/fresh.err" || fail "scripts/debug.sh on a fresh clone failed: $(cat "$work/fresh.err")"
grep -q "is not built yet: building the debug preset" "$work/fresh.err" || fail "no word that it builds: $(cat "$work/fresh.err")"
grep -q "^cmake --preset debug -S $src -B $work/fresh" "$work/fake.log" || fail "not the debug preset: $(cat "$work/fake.log")"
grep -q "^cmake --build $work/fresh .*--target layer_norm_by_hand" "$work/fake.log" || fail "not the example only: $(cat "$work/fake.log")"
for arg in "add-auto-load-safe-path $src" "break tapegrad::layer_norm_backward" "$work/fresh/examples/layer_norm_by_hand"; do
  grep -qF "$arg|" "$work/fake.log" || fail "gdb was not given '$arg': $(cat "$work/fake.log")"
done
(cd "$src" && scripts/debug.sh no_such_example) > /dev/null 2> "$work/bad.err"; [ $? -eq 2 ] || fail "an unknown example should exit 2"
grep -q "one of .*layer_norm_by_hand" "$work/bad.err" || fail "an unknown example does not list the examples: $(cat "$work/bad.err")"

# 2. Real gdb on a built -O0 program.
program="$build/tests/tapegrad_gdb_layer_norm_by_hand"
# The library too: a Release build's libtapegrad.so has no debug information, so gdb cannot stop in its functions.
if ! command -v gdb > /dev/null || ! readelf -S --wide "$program" 2> /dev/null | grep -q debug_info ||
   ! readelf -S --wide "$build/libtapegrad.so" 2> /dev/null | grep -q debug_info; then
  echo "PASS: debug_script (the real gdb part SKIPPED: no gdb or no debug information)"; exit 0
fi
mkdir -p "$work/built/examples" && ln -s "$program" "$work/built/examples/layer_norm_by_hand"
extra=()
case "$build" in "$src"/*) ;; *) extra=(-iex "add-auto-load-safe-path $build") ;; esac  # a build outside the tree
(cd "$src" && TAPEGRAD_DEBUG_BUILD_DIR="$work/built" OPENBLAS_NUM_THREADS=1 \
  scripts/debug.sh layer_norm_by_hand -- ${extra[@]+"${extra[@]}"} -batch -ex "p dy") > "$work/gdb.out" 2>&1
grep -q "declined" "$work/gdb.out" && fail "gdb declined the printers: $(cat "$work/gdb.out")"
grep -q "layer_norm_backward (" "$work/gdb.out" || fail "gdb did not stop in layer_norm_backward: $(cat "$work/gdb.out")"
grep -qF '$1 = xarray (3) [1, 2, 4]' "$work/gdb.out" || fail "p dy did not print through the printers: $(cat "$work/gdb.out")"
echo "PASS: debug_script"
