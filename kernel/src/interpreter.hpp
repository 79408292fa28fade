#pragma once
// The kernel's brain: a xeus interpreter (Jupyter's messages) around clang's
// incremental C++ interpreter (clang::Interpreter, the engine of clang-repl).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <xeus/xinterpreter.hpp>

#include "cell_text.hpp"
#include "output_capture.hpp"

namespace clang {
class Interpreter;
}

namespace tapegrad_xcpp {

struct KernelOptions {
  std::string resource_dir;               // clang's own headers (clang-22 -print-resource-dir)
  std::vector<std::string> include_dirs;  // the kernel's xcpp/ headers, and any -I given
  std::vector<std::string> compiler_args; // more clang arguments (e.g. -O1)
};

// What running one piece of code gave.
struct RunOutcome {
  enum Status { ok, compile_error, exception, interrupted } status = ok;
  std::string ename;
  std::string evalue;
  std::vector<std::string> traceback;
};

class CppInterpreter : public xeus::xinterpreter {
 public:
  explicit CppInterpreter(const KernelOptions& options);  // throws std::runtime_error
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

  RunOutcome run(const std::string& code);     // compile, then execute (interruptible)
  RunOutcome apply(const ClingPragma& pragma);  // #pragma cling ...
  void recover_after_failure();                 // see the comment in interpreter.cpp
  bool run_quietly(const std::string& code);    // output discarded; true if it worked

  std::unique_ptr<clang::Interpreter> clang_;
  std::unique_ptr<OutputCapture> capture_;
  std::vector<std::string> library_dirs_;
  std::set<std::string> names_;  // for completion
  bool display_header_loaded_ = false;
  int execution_count_ = 0;
  unsigned throwaway_count_ = 0;
};

}  // namespace tapegrad_xcpp
