# The tour of examples/tape_walkthrough: leaves, the tape, a backward by name, main's tensors.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.walkthrough).
# program: examples/tape_walkthrough
start
next 3
p x
p x.impl_->value
p x.impl_->grad
p x.grad()
break matmul.cpp:tapegrad::matmul_backward
continue
p dy
p $entry().op
p $tape()
tapegrad-table
frame function main
p loss
p b
