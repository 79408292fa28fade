# Runs gdb in batch mode with COMMANDS on PROGRAM and checks that the pretty-
# printers showed shapes and values (not xtensor internals). Prints "SKIPPED:"
# (which the test treats as skipped) when gdb is not installed or LIBRARY/PROGRAM
# have no debug information.
#   cmake -DGDB=... -DPROGRAM=... -DLIBRARY_DIR=... -DLIBRARY=... -DREADELF=... -DCOMMANDS=... -P run_gdb_test.cmake

if(NOT GDB OR NOT EXISTS "${GDB}")
  message("SKIPPED: gdb is not installed (apt install gdb); the pretty-printer test needs it")
  return()
endif()
# A Release or MinSizeRel library has no debug information: gdb would stop without
# arguments or types. Skip with the reason instead of failing.
foreach(binary IN ITEMS "${LIBRARY}" "${PROGRAM}")
  execute_process(COMMAND "${READELF}" -S --wide "${binary}" OUTPUT_VARIABLE sections)
  if(NOT sections MATCHES "\\.debug_info")
    get_filename_component(binary_name "${binary}" NAME)
    message("SKIPPED: ${binary_name} has no debug information (a Release or MinSizeRel build): the gdb test needs -g; "
            "build with the debug preset (cmake --preset debug) or RelWithDebInfo")
    return()
  endif()
endforeach()

# -nx: no user gdbinit. The safe-path line lets gdb run the printers embedded
# in libtapegrad.so's .debug_gdb_scripts section.
execute_process(
  COMMAND "${GDB}" -batch -nx -iex "add-auto-load-safe-path ${LIBRARY_DIR}" -x "${COMMANDS}" "${PROGRAM}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 100)
set(out "${out}\n${err}")
message("${out}")

set(failed "")
function(expect text)
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    set(failed "${failed}\n  missing: ${text}" PARENT_SCOPE)
  endif()
endfunction()
function(refuse text)
  string(FIND "${out}" "${text}" at)
  if(NOT at EQUAL -1)
    set(failed "${failed}\n  should not appear: ${text}" PARENT_SCOPE)
  endif()
endfunction()

# Stopped in relu's backward: the incoming gradient and the tape entry.
expect("__args#0 = xarray (2, 2) [[0, 2.15], [0.5, 2.4625]]")
expect("__args#1 = TapeEntry #2 relu")
expect("  input 0: Tensor(shape=(2, 2), value=[[-1, 4.3], [1, 4.925]], made_by=add (tape #1), requires_grad, grad=none)")
expect("  output:  Tensor(shape=(2, 2), value=[[0, 4.3], [1, 4.925]], made_by=relu (tape #2), requires_grad, grad=[[0, 2.15], [0.5, 2.4625]])")
# The tape, one line per entry, with "#k" for outputs of earlier entries.
expect("Tape with 5 entries (generation ")
expect("#0   matmul       'x' (2, 3), 'w' (3, 2) -> (2, 2)")
expect("#1   add          #0 (2, 2), 'b' (2) -> (2, 2)")
expect("#3   mul          #2 (2, 2), #2 (2, 2) -> (2, 2)")
expect("#4   mean         #3 (2, 2) -> ()")
# Tensors in main: name, shape, values, grad state.
expect("Tensor(name='x', shape=(2, 3), value=[[1, -2, 3], [-1, 0.5, 2]], requires_grad, grad=none)")
expect("Tensor(name='b', shape=(2), value=[2, -0.2], requires_grad, grad=none)")
expect("Tensor(shape=(), value=10.9364, made_by=mean (tape #4), requires_grad, grad=1)")
expect("xarray (2, 3) [[1, -2, 3], [-1, 0.5, 2]]")
expect("Tensor(name='w', shape=(3, 2), value=[[0.5, -1], [1, 0.25], [-0.5, 2]], requires_grad, grad=none)")
# tapegrad-table prints what tape_table() would, read from memory.
expect("  0  matmul  'x' (2, 3), 'w' (3, 2)  (2, 2)  7.518    -")
# /r still gives the raw members.
expect("==== raw\n$")
# No xtensor internals, no printer errors.
refuse("m_storage")
refuse("m_shape = ")
refuse("p_begin")
refuse("_M_refcount")
refuse("<tapegrad ")
refuse("Python Exception")
refuse("auto-loading has been declined")
refuse("Couldn't write extended state")  # a call into the program: the printers never make one

if(failed)
  message(FATAL_ERROR "gdb output did not show what the printers should show:${failed}")
endif()
