# The LayerNorm backward, stopped by name: dy, the saved statistics, the tape entry.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.layer_norm_stop).
# program: examples/layer_norm_by_hand
start
break tapegrad::layer_norm_backward
continue
p dy
p saved.stats
p $entry()
p x.grad()
p $tape()
tapegrad-table
bt
