# gdb commands for the debug.gdb_pretty_printers test (run_gdb_test.cmake checks the output).
# Works on the -O0 example linked to a library built -O0 (debug preset) or -O3 -g (RelWithDebInfo).
# Reads memory only: no command here calls a function in the program.
set debuginfod enabled off
set pagination off
set confirm off
set width 0
start
# The library is loaded now: stop where std::function calls relu's backward lambda.
rbreak ^std::_Function_handler<.*tapegrad::relu.*_M_invoke
continue
echo ==== backward args\n
info args
echo ==== tape\n
p $tape()
echo ==== main\n
frame function main
p x
p b
p loss
p x.impl_->value
p *w.impl_
echo ==== table\n
tapegrad-table
echo ==== raw\n
p/r x.impl_->value.m_shape.m_begin[0]
echo ==== end\n
kill
