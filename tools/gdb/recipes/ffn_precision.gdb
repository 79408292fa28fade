# The FFN inside a precision_scope: feed_forward runs composed, so the stop is linear_backward.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.ffn_precision).
# program: examples/ffn_by_hand
start --fp16
break feed_forward.cpp:tapegrad::feed_forward_backward
break linear.cpp:tapegrad::linear_backward
continue
p $entry().op
p $tape()
