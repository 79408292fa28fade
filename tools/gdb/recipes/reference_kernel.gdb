# From the LayerNorm backward into the reference kernel's loops, in any build: the one
# switch (tapegrad::kernels::use_fast_kernels) starts as TAPEGRAD_FAST_KERNELS; set it false.
# Shown in tools/gdb/README.md; run by ctest (debug.gdb_recipe.reference_kernel).
# program: examples/layer_norm_by_hand
start
break tapegrad::layer_norm_backward
continue
p tapegrad::kernels::use_fast_kernels
set var tapegrad::kernels::use_fast_kernels = false
break normalize_reference.cpp:tapegrad::kernels::reference::normalize_backward
continue
bt 3
