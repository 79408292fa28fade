# Catch the first NaN: anomaly mode throws, gdb stops at the throw; the op that made it is up the stack.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.anomaly).
# program: examples/anomaly_hunt
catch throw
run
up
p op
frame function tapegrad::log
p a
