# The tape as a graph, written from inside the LayerNorm backward by reading memory only.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.graph_stop).
# program: examples/layer_norm_by_hand
start
break tapegrad::layer_norm_backward
continue
tapegrad-graph layer_norm_backward.svg
shell grep -c 'class="node' layer_norm_backward.svg
shell grep -c 'class="edge"' layer_norm_backward.svg
shell grep -o 'id="e0" class="node op fused current"' layer_norm_backward.svg
tapegrad-graph layer_norm_backward.dot LR
shell grep 'e0 \[' layer_norm_backward.dot
