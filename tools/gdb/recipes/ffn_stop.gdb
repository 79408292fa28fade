# The FFN module and its fused backward: the module printer, then feed_forward_backward.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.ffn_stop).
# program: examples/ffn_by_hand
start
break feed_forward.cpp:tapegrad::feed_forward_backward
continue
p dy
p saved.activation
p b1
p $entry().op
frame function main
p ffn
p *ffn.fc1
