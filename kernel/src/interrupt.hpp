#pragma once
// Jupyter's Interrupt (SIGINT) for the cells' code: how a running cell is stopped without
// leaving a library's locks held. The whole story is at the top of interrupt.cpp.

#include <functional>

namespace tapegrad_xcpp {

// At start, on the thread that will run the cells (the main one): installs the SIGINT
// handler and starts the retry thread. SIGINT is blocked from then on in this thread and in
// every thread started later, except while run_interruptibly runs a cell's code.
void install_interrupt_handler();

// An interrupt that came while the kernel waited for a cell (SIGINT blocked) is pending:
// drop it, as Python does, so that it does not stop the cell that comes next.
void discard_pending_interrupts();

// Runs a cell's code with Interrupt enabled: true if it finished, false if an interrupt
// ended it. An exception thrown by body passes through (with SIGINT blocked again).
bool run_interruptibly(const std::function<void()>& body);

}  // namespace tapegrad_xcpp
