#pragma once
// Jupyter's Interrupt (SIGINT) for the cells' code: how a running cell is stopped without
// leaving a library's locks held; and a crash in a cell's code (or in a thread it started), which
// ends only that cell.
// The whole story is at the top of interrupt.cpp.

#include <functional>

namespace tapegrad_xcpp {

// At start, on the thread that will run the cells (the main one): installs the SIGINT
// handler and starts the retry thread. SIGINT is blocked from then on in this thread and in
// every thread started later, except while run_interruptibly runs a cell's code.
void install_interrupt_handler();

// An interrupt that came while the kernel waited for a cell (SIGINT blocked) is pending:
// drop it, as Python does, so that it does not stop the cell that comes next.
void discard_pending_interrupts();

// Runs a cell's code with Interrupt enabled: 0 if it finished, SIGINT if an interrupt ended
// it, or the signal of a crash in it or in a thread it started (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: the cell ends
// with an error and the kernel lives on). An exception thrown by body passes through (with
// SIGINT blocked again).
int run_interruptibly(const std::function<void()>& body);

}  // namespace tapegrad_xcpp
