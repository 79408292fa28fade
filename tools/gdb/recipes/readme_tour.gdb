# The short tour: the block in tools/gdb/README.md ("The short version"), for the top-level README.
# Run by ctest (debug.gdb_recipe.readme_tour), which also checks README.md if it shows it.
# program: examples/layer_norm_by_hand
start
break tapegrad::layer_norm_backward
continue
p dy
p saved.stats
p $entry().op
p $tape()
bt
