#pragma once
// The kernel's brain: a xeus interpreter (Jupyter's messages) around clang's
// incremental C++ interpreter (clang::Interpreter, the engine of clang-repl).
//
// A cell's way through it: magics (magics.hpp) or the cell itself; #pragma cling lines
// (cell_text.hpp); the rewrite that wraps statements in functions and declarations in inline
// namespaces (cell_wrap.hpp); the check pass in a forked copy (check_pass.hpp); the real
// compile, where a redefinition hides the older one (redefinition.hpp); then the run, which
// Interrupt or a crash may end (interrupt.hpp).

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <xeus/xinterpreter.hpp>

#include "cell_text.hpp"
#include "clang_start.hpp"
#include "output_capture.hpp"

namespace clang {
struct PartialTranslationUnit;
}

namespace tapegrad_xcpp {

struct Magic;

// What running one piece of code gave.
struct RunOutcome {
  enum Status { ok, compile_error, exception, interrupted, crashed } status = ok;
  std::string ename;
  std::string evalue;
  std::vector<std::string> traceback;
};

class CppInterpreter : public xeus::xinterpreter {
 public:
  explicit CppInterpreter(const KernelOptions& options);
  ~CppInterpreter() override;

  // Called (through a function pointer) by xcpp::display in JIT'd code.
  void publish_from_cell(const std::string& kind, const std::string& json_text);

 private:
  void configure_impl() override {}
  nl::json execute_request_impl(int execution_counter, const std::string& code, bool silent, bool store_history,
                                nl::json user_expressions, bool allow_stdin) override;
  nl::json complete_request_impl(const std::string& code, int cursor_pos) override;
  nl::json inspect_request_impl(const std::string& code, int cursor_pos, int detail_level) override;
  nl::json is_complete_request_impl(const std::string& code) override;
  nl::json kernel_info_request_impl() override;
  void shutdown_request_impl() override {}

  // What compiled, in order: a learner's cell, or the kernel's own helper code (%undo skips it).
  enum class Step { cell, cell_part, helper };
  struct Compiled {
    Step step;
    RedefinitionHider::Changes changes;
  };

  KernelClang* clang();                              // waits for the start; null if clang could not start
  RunOutcome run_cell(const std::string& code);      // pragmas, then the wrapped cell
  // Check pass, then compile and execute (interruptibly) each piece in turn.
  RunOutcome run(const std::vector<std::string>& pieces, Step step);
  void run_piece(const std::string& code, Step step, RunOutcome& outcome);
  std::vector<std::string> unresolved_symbols(clang::PartialTranslationUnit& ptu);
  RunOutcome run_magic(const Magic& magic);
  RunOutcome apply(const ClingPragma& pragma);       // #pragma cling ...
  static void stopped(int stopped_by, RunOutcome& outcome);

  std::thread starter_;
  ClangStart started_;
  std::unique_ptr<OutputCapture> capture_;
  std::vector<std::string> library_dirs_;
  std::set<std::string> names_;  // for completion
  std::vector<Compiled> history_;
  bool display_header_loaded_ = false;
  int execution_count_ = 0;
  unsigned serial_ = 0;
};

}  // namespace tapegrad_xcpp
