#include "interpreter.hpp"

#include <cxxabi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Interpreter/Interpreter.h>
#include <clang/Lex/DirectoryLookup.h>
#include <clang/Lex/HeaderSearch.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Interpreter/PartialTranslationUnit.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

#include "active_branches.hpp"
#include "cell_wrap.hpp"
#include "check_pass.hpp"
#include "diagnostic_text.hpp"
#include "help.hpp"
#include "interrupt.hpp"
#include "magics.hpp"

namespace tapegrad_xcpp {

namespace {

CppInterpreter* the_kernel = nullptr;

// What xcpp::display in JIT'd code calls (its address is given to the JIT'd code at start).
void publish_trampoline(const char* kind, const char* json) {
  if (the_kernel != nullptr) the_kernel->publish_from_cell(kind, json);
}

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d != nullptr ? d : name;
  std::free(d);
  return out;
}

// "input_line_7:2:3: error: no member named ..." -> "no member named ..."
std::string first_error(const std::string& diagnostics) {
  for (const std::string& line : lines_of(diagnostics)) {
    const std::size_t at = line.find("error: ");
    if (at != std::string::npos) return line.substr(at + 7);
  }
  return diagnostics.empty() ? "the code did not compile" : lines_of(diagnostics).front();
}

// A redefinition the kernel cannot replace (cell_wrap.hpp: out-of-line members and explicit
// specialisations stay where they are, since they belong to a class or template of an earlier cell): say
// what to do, as clang's "redefinition of 'f'" alone does not.
std::string redefinition_hint(const std::string& first_error_text, const std::vector<std::string>& pieces) {
  if (first_error_text.rfind("redefinition of", 0) != 0) return "";
  static const std::regex out_of_line(R"(\b\w+\s*(<[^;{}]*>)?\s*::\s*~?\w+\s*\([^;{}]*\)[^;{}]*\{)");
  static const std::regex specialisation(R"(\btemplate\s*<\s*>)");
  for (const std::string& piece : pieces)
    if (std::regex_search(piece, out_of_line) || std::regex_search(piece, specialisation))
      return "hint: a member defined outside its class (double S::f() {...}) or an explicit specialisation "
             "(template <> ...) can be defined once for each definition of its class or template: re-run the cell "
             "that defines the class or template, then this one (or define the member inside the class)";
  return "";
}

// A header not found: clang says only "'tapegrad/tapegrad.hpp' file not found". The include paths are the
// notebook's to set, as in cling (the kernel starts in the notebook's folder).
std::string include_hint(const std::string& first_error_text) {
  const std::string tail = "' file not found";
  const std::size_t end = first_error_text.find(tail), start = first_error_text.rfind('\'', end - 1);
  if (end == std::string::npos || end == 0 || start == std::string::npos) return "";
  const std::string header = first_error_text.substr(start + 1, end - start - 1);
  if (header.rfind("tapegrad_grader/", 0) == 0)  // the exercises' grader: an application beside the library
    return "hint: tell the interpreter where the exercises' grader is, as the exercise notebooks' first cell does: "
           "#pragma cling add_include_path(\"../exercises/grader/include\") (relative to the notebook's folder), "
           "#pragma cling load(\"libtapegrad_grader\") after libtapegrad";
  if (header.rfind("tapegrad/", 0) == 0)
    return "hint: tell the interpreter where tapegrad is, as the notebooks' first cell does: "
           "#pragma cling add_include_path(\"../include\") (relative to the notebook's folder, or absolute), "
           "#pragma cling add_library_path(\"../build\"), #pragma cling load(\"libtapegrad\")";
  return "hint: '" + header + "' is in none of the include paths: #pragma cling add_include_path(\"DIR\") adds "
         "the folder that holds it";
}

const char* const cxx_keywords[] = {
    "auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr", "continue", "decltype",
    "default", "delete", "double", "else", "enum", "explicit", "false", "float", "for", "if", "inline", "int",
    "long", "namespace", "new", "nullptr", "operator", "private", "protected", "public", "return", "short",
    "signed", "sizeof", "static", "static_cast", "struct", "switch", "template", "this", "throw", "true", "try",
    "typedef", "typename", "unsigned", "using", "virtual", "void", "while", "std", "include", "pragma"};

// cling's load("name"): name, name.so or libname.so, in the library paths, then the system's.
std::string find_library(const std::string& name, const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  if (fs::path(name).is_absolute()) return fs::exists(name) ? name : "";
  const std::string base = name.rfind("lib", 0) == 0 ? name.substr(3) : name;
  std::vector<std::string> search = dirs;
  for (const char* d : {"/usr/local/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu"})
    search.push_back(d);
  for (const std::string& d : search)
    for (const std::string& candidate : {name, name + ".so", "lib" + base + ".so"}) {
      const fs::path p = fs::path(d) / candidate;
      if (fs::is_regular_file(p)) return fs::absolute(p).string();
    }
  return "";
}

// The macros earlier cells defined, as active_branches.hpp reads them.
MacroLookup macros_of(clang::Interpreter& clang) {
  return [&clang](const std::string& name) -> std::optional<std::string> {
    clang::Preprocessor& pp = clang.getCompilerInstance()->getPreprocessor();
    const clang::MacroInfo* info = pp.getMacroInfo(pp.getIdentifierInfo(name));
    if (info == nullptr) return std::nullopt;
    if (info->isFunctionLike()) return std::string("(");
    std::string text;
    for (const clang::Token& token : info->tokens()) text += pp.getSpelling(token) + " ";
    return text;
  };
}

}  // namespace

// ---- Start -----------------------------------------------------------------------

CppInterpreter::CppInterpreter(const KernelOptions& options) {
  install_interrupt_handler();
  capture_ = std::make_unique<OutputCapture>(
      [this](const std::string& stream, const std::string& text) { publish_stream(stream, text); });
  // clang (and the precompiled header) start in the background, so that the kernel answers
  // Jupyter at once; the first request that needs clang waits for it (clang()).
  starter_ = std::thread([this, options] { started_ = start_clang(options); });
  for (const char* k : cxx_keywords) names_.insert(k);
}

CppInterpreter::~CppInterpreter() {
  if (starter_.joinable()) starter_.join();
  the_kernel = nullptr;
}

KernelClang* CppInterpreter::clang() {
  if (starter_.joinable()) {
    starter_.join();
    if (started_.clang) {
      // JIT'd code reaches the kernel through this pointer (xcpp/xdisplay.hpp declares it).
      std::ostringstream preamble;
      preamble << "void (*tapegrad_xcpp_publish)(const char*, const char*) = "
               << "reinterpret_cast<void (*)(const char*, const char*)>(0x" << std::hex
               << reinterpret_cast<std::uintptr_t>(&publish_trampoline) << "ULL);";
      if (llvm::Error err = started_.clang->ParseAndExecute(preamble.str())) {
        started_.error = "the kernel's preamble failed: " + llvm::toString(std::move(err));
        started_.clang.reset();
      }
      the_kernel = this;
    }
  }
  return started_.clang.get();
}

// The functions and variables a parsed piece's code refers to that neither earlier cells, nor the kernel,
// nor a loaded library define (their linker names).
std::vector<std::string> CppInterpreter::unresolved_symbols(clang::PartialTranslationUnit& ptu) {
  std::vector<std::string> missing;
  if (!ptu.TheModule) return missing;
  auto check = [&](const llvm::GlobalValue& value) {
    if (!value.isDeclaration() || value.hasExternalWeakLinkage() || value.getName().empty()) return;
    auto address = clang()->getSymbolAddress(value.getName());
    if (!address) {
      llvm::consumeError(address.takeError());
      missing.push_back(value.getName().str());
    }
  };
  for (const llvm::Function& f : ptu.TheModule->functions())
    if (!f.isIntrinsic()) check(f);
  for (const llvm::GlobalVariable& g : ptu.TheModule->globals()) check(g);
  return missing;
}

// ---- Running code ----------------------------------------------------------------

RunOutcome CppInterpreter::run(const std::vector<std::string>& pieces, Step step) {
  RunOutcome outcome;
  auto compile_error = [&](const std::string& diagnostics, const std::string& ename) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = ename;
    const std::string shown = without_wrappers(diagnostics);
    outcome.evalue = first_error(shown);
    outcome.traceback = lines_of(shown);
    if (const std::string hint = redefinition_hint(outcome.evalue, pieces); !hint.empty())
      outcome.traceback.push_back(hint);
    if (const std::string hint = include_hint(outcome.evalue); !hint.empty()) outcome.traceback.push_back(hint);
    return outcome;
  };
  // The check pass (check_pass.hpp): a cell that does not compile never reaches the real state.
  const CheckResult check = check_compiles(*clang(), pieces);
  if (check.clang_crashed_with != 0) {
    // A compile error of the cell, with its text: clang itself failed on it (only in the check pass's copy).
    compile_error(check.diagnostics, "CompileError");
    outcome.evalue = "clang crashed (signal " + std::to_string(check.clang_crashed_with) +
                     ") while compiling this cell; nothing of it was kept, and the kernel is as it was before it";
    outcome.traceback.insert(outcome.traceback.begin(), outcome.evalue);
    std::vector<std::string> cell;  // (a later piece starts with blank lines for the ones before it)
    for (const std::string& piece : pieces) {
      const std::vector<std::string> lines = lines_of(without_wrappers(piece));
      cell.insert(cell.end(), lines.begin() + static_cast<std::ptrdiff_t>(std::min(cell.size(), lines.size())), lines.end());
    }
    for (std::size_t line = 0; line < cell.size(); ++line)
      outcome.traceback.push_back(std::to_string(line + 1) + " | " + cell[line]);
    return outcome;
  }
  if (check.timed_out) {
    compile_error(check.diagnostics, "CompileTimeout");
    outcome.evalue = "clang did not finish compiling this cell in " + std::to_string(check_time_limit().count()) +
                     " s (in the kernel's check pass), so it was stopped; nothing of the cell was kept, and the "
                     "kernel is as it was before it. Look for an #if/#endif or a bracket that leaves a declaration "
                     "open, or a template that instantiates itself without end";
    outcome.traceback.insert(outcome.traceback.begin(), outcome.evalue);
    return outcome;
  }
  if (!check.compiles) return compile_error(check.diagnostics, "CompileError");

  for (std::size_t i = 0; i < pieces.size() && outcome.status == RunOutcome::ok; ++i) {
    run_piece(pieces[i], i == 0 ? step : Step::cell_part, outcome);
    if (outcome.status == RunOutcome::exception || outcome.status == RunOutcome::interrupted ||
        outcome.status == RunOutcome::crashed)
      outcome.traceback = {outcome.ename + ": " + outcome.evalue};
  }
  return outcome;
}

// Compiles one piece for real (it compiled in the check pass), then runs it.
void CppInterpreter::run_piece(const std::string& code, Step step, RunOutcome& outcome) {
  // Diagnostics go to llvm::errs() (fd 2): keep them for the error reply.
  capture_->set_keep(true);
  auto ptu = clang()->Parse(code);
  const std::string diagnostics = capture_->take(2);
  capture_->set_keep(false);
  if (!ptu) {  // (it compiled in the check pass, so this should not happen)
    llvm::consumeError(ptu.takeError());
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "CompileError";
    const std::string shown = without_wrappers(diagnostics);
    outcome.evalue = first_error(shown);
    outcome.traceback = lines_of(shown);
    return;
  }
  history_.push_back({step, started_.hider->take_changes()});
  if (!diagnostics.empty())  // warnings
    capture_->flush_then([&] { publish_stream("stderr", without_wrappers(diagnostics)); });

  // A cell that calls a function declared but never defined (or whose library is not loaded) is not
  // given to the JIT: clang 22's JIT would fail to link it, and its initialiser, left registered, would
  // make every later cell fail too ("Failed to materialize symbols: __orc_init_func.incr_module_N").
  // cling also refuses to run such a cell. (Its inline and template functions need no care: clang emits
  // them again in the next cell that uses them.)
  if (const std::vector<std::string> missing = unresolved_symbols(*ptu); !missing.empty()) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "LinkError";
    std::string names;
    for (const std::string& name : missing) names += (names.empty() ? "" : ", ") + without_wrappers(demangle(name.c_str()));
    outcome.evalue = "this cell uses " + names + ", which " + (missing.size() == 1 ? "is" : "are") +
                     " declared but defined nowhere: you are probably missing " +
                     (missing.size() == 1 ? "its definition" : "their definitions") +
                     " (define it in a cell, or load the library that has it with #pragma cling load(\"...\")). "
                     "Nothing of this cell ran";
    outcome.traceback = {outcome.ename + ": " + outcome.evalue};
    RedefinitionHider::revert(history_.back().changes);
    history_.pop_back();
    return;
  }

  // Execute, interruptibly (interrupt.cpp).
  try {
    const int stopped_by = run_interruptibly([&] {
      if (llvm::Error err = clang()->Execute(*ptu)) {
        outcome.status = RunOutcome::compile_error;
        outcome.ename = "JITError";
        outcome.evalue = llvm::toString(std::move(err));
        outcome.traceback = lines_of(outcome.evalue);
      }
    });
    stopped(stopped_by, outcome);
  } catch (const std::exception& e) {
    outcome.status = RunOutcome::exception;
    outcome.ename = demangle(abi::__cxa_current_exception_type()->name());
    outcome.evalue = e.what();
  } catch (...) {
    outcome.status = RunOutcome::exception;
    const std::type_info* type = abi::__cxa_current_exception_type();
    outcome.ename = type != nullptr ? demangle(type->name()) : "unknown exception";
    outcome.evalue = "(not a std::exception)";
  }
  if (outcome.ename == "JITError") {
    // It compiled but could not be linked (e.g. a function whose library is not loaded): none of
    // its code can run, so its names go and the definitions it replaced come back.
    RedefinitionHider::revert(history_.back().changes);
    history_.pop_back();
  }
}

// What run_interruptibly's answer means for the cell.
void CppInterpreter::stopped(int stopped_by, RunOutcome& outcome) {
  if (stopped_by == 0) return;
  if (stopped_by == SIGINT) {
    outcome.status = RunOutcome::interrupted;
    outcome.ename = "Interrupted";
    outcome.evalue = "the cell was interrupted";
    return;
  }
  outcome.status = RunOutcome::crashed;
  outcome.ename = stopped_by == SIGSEGV  ? "SegmentationFault"
                  : stopped_by == SIGBUS ? "BusError"
                  : stopped_by == SIGFPE ? "FloatingPointException"
                  : stopped_by == SIGABRT ? "Aborted"
                                          : "IllegalInstruction";
  outcome.evalue = std::string("the cell's code crashed (") + strsignal(stopped_by) +
                   (stopped_by == SIGSEGV ? ": a null or dangling pointer, an index out of range, or endless recursion"
                    : stopped_by == SIGABRT ? ": an assert failed, or std::terminate ran"
                                            : "") +
                   "). The kernel lives on and what earlier cells defined is still there; "
                   "what this cell was doing is left half done";
}

RunOutcome CppInterpreter::apply(const ClingPragma& pragma) {
  namespace fs = std::filesystem;
  RunOutcome outcome;
  // Relative paths are relative to the notebook's folder: Jupyter starts the kernel there.
  const std::string path = pragma.kind == "load" ? pragma.argument : fs::absolute(pragma.argument).lexically_normal().string();
  auto fail = [&](const std::string& message) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "PragmaError";
    outcome.evalue = "#pragma cling " + pragma.kind + "(\"" + pragma.argument + "\"): " + message;
    outcome.traceback = {outcome.evalue};
    return outcome;
  };
  if (pragma.kind == "add_include_path") {
    if (!fs::is_directory(path)) return fail("no such directory " + path);
    clang::CompilerInstance* ci = clang()->getCompilerInstance();
    clang::HeaderSearch& search = ci->getPreprocessor().getHeaderSearchInfo();
    auto dir = ci->getFileManager().getOptionalDirectoryRef(path);
    if (!dir) return fail("cannot open directory " + path);
    search.AddSearchPath(clang::DirectoryLookup(*dir, clang::SrcMgr::C_User, false), /*isAngled=*/true);
  } else if (pragma.kind == "add_library_path") {
    if (!fs::is_directory(path)) return fail("no such directory " + path);
    library_dirs_.push_back(path);
  } else if (pragma.kind == "load") {
    const std::string library = find_library(pragma.argument, library_dirs_);
    if (library.empty()) return fail("library not found in the library paths (is it built?)");
    if (llvm::Error err = clang()->LoadDynamicLibrary(library.c_str())) return fail(llvm::toString(std::move(err)));
  } else {
    return fail("unknown pragma; expected add_include_path, add_library_path or load");
  }
  return outcome;
}


// ---- Magics (magics.hpp) -----------------------------------------------------------

RunOutcome CppInterpreter::run_magic(const Magic& magic) {
  RunOutcome outcome;
  auto fail = [&](const std::string& ename, const std::string& message) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = ename;
    outcome.evalue = message;
    outcome.traceback = {message};
    return outcome;
  };
  auto say = [&](const std::string& text) { capture_->flush_then([&] { publish_stream("stdout", text); }); };
  if (!magic.error.empty()) return fail(magic.kind == Magic::unknown ? "UnknownMagic" : "MagicError", magic.error);
  if (magic.kind == Magic::file) {
    namespace fs = std::filesystem;
    const bool existed = fs::exists(magic.argument);
    std::ofstream out(magic.argument, magic.append ? std::ios::app : std::ios::trunc);
    out << magic.rest;
    if (!out) return fail("MagicError", "%%file: cannot write " + magic.argument);
    say((magic.append ? "Appending to " : existed ? "Overwriting " : "Writing ") + magic.argument + "\n");
    return outcome;
  }
  if (magic.kind == Magic::help) {
    const std::string text = describe(*clang(), magic.argument);
    if (text.empty()) return fail("NameError", "no declaration of " + magic.argument + " is known (is its header included?)");
    say(without_wrappers(text));
    return outcome;
  }
  if (magic.kind == Magic::undo) {
    // Undo the last cell that compiled: its names leave lookup and the ones it replaced come
    // back. Its code stays loaded (clang's own Undo would unload code that later inputs may
    // need, such as a template instantiated first there), and what it did is not undone.
    while (!history_.empty() && history_.back().step != Step::cell) {
      RedefinitionHider::revert(history_.back().changes);
      history_.pop_back();
    }
    if (history_.empty()) return fail("MagicError", "%undo: no cell to undo");
    RedefinitionHider::revert(history_.back().changes);
    const std::size_t names = history_.back().changes.introduced.size();
    history_.pop_back();
    say("undid the last cell (" + std::to_string(names) + " name" + (names == 1 ? "" : "s") + " removed)\n");
    return outcome;
  }
  // %timeit / %%timeit, as xeus-cling does them: the statement in a loop in a function the
  // kernel compiles once, then called N times per run, R runs.
  const std::string function = std::string(kKernelNamePrefix) + "timeit_" + std::to_string(++serial_);
  outcome = run({"#include <chrono>\nextern \"C\" double " + function + "(unsigned long tgx_loops) {\n"
                "  const auto tgx_start = std::chrono::steady_clock::now();\n"
                "  for (unsigned long tgx_loop = 0; tgx_loop < tgx_loops; ++tgx_loop) {\n" + magic.argument + "\n;}\n"
                "  return std::chrono::duration<double>(std::chrono::steady_clock::now() - tgx_start).count();\n}"},
                Step::helper);
  if (outcome.status != RunOutcome::ok) return outcome;
  auto address = clang()->getSymbolAddress(function);
  if (!address) return fail("JITError", llvm::toString(address.takeError()));
  auto* timed = address->toPtr<double (*)(unsigned long)>();
  long number = magic.number;
  std::vector<double> runs;
  try {
    const int stopped_by = run_interruptibly([&] {
      if (number == 0)  // as xeus-cling: 1, 10, 100, ... loops until a run takes 0.2 s
        for (number = 1;; number *= 10)
          if (timed(static_cast<unsigned long>(number)) >= 0.2 || number >= 1000000000L) break;
      for (int r = 0; r < magic.repeat; ++r) runs.push_back(timed(static_cast<unsigned long>(number)));
    });
    stopped(stopped_by, outcome);
  } catch (const std::exception& e) {
    return fail(demangle(abi::__cxa_current_exception_type()->name()), e.what());
  }
  if (outcome.status != RunOutcome::ok) {
    outcome.traceback = {outcome.ename + ": " + outcome.evalue};
    return outcome;
  }
  say(timeit_report(runs, number));
  return outcome;
}

RunOutcome CppInterpreter::run_cell(const std::string& code) {
  RunOutcome outcome;
  // Only the branches of its #if's that clang compiles are split and wrapped (active_branches.hpp).
  const Cell cell = read_cell(without_inactive_branches(code, macros_of(*clang())));
  for (const ClingPragma& pragma : cell.pragmas) {
    outcome = apply(pragma);
    if (outcome.status != RunOutcome::ok) return outcome;
  }
  const std::string source = cell.body + cell.trailing_expression;
  if (source.find_first_not_of(" \t\r\n") == std::string::npos) return outcome;
  const std::vector<Chunk> chunks = split_top_level(source);
  if (shows_result(source, chunks) && !display_header_loaded_) {
    outcome = run({"#include <xcpp/xdisplay.hpp>"}, Step::helper);
    display_header_loaded_ = outcome.status == RunOutcome::ok;
    if (!display_header_loaded_) return outcome;
  }
  outcome = run(wrap_cell(source, ++serial_), Step::cell);
  if (outcome.status == RunOutcome::compile_error) outcome.traceback = with_cell_lines(outcome.traceback, source);
  if (outcome.status == RunOutcome::ok)
    for (const std::string& name : identifiers_in(code)) names_.insert(name);
  return outcome;
}

nl::json CppInterpreter::execute_request_impl(int execution_counter, const std::string& code, bool silent,
                                              bool /*store_history*/, nl::json /*user_expressions*/,
                                              bool /*allow_stdin*/) {
  execution_count_ = execution_counter;
  RunOutcome outcome;
  capture_->begin();
  if (clang() == nullptr) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "KernelError";
    outcome.evalue = started_.error;
    outcome.traceback = {started_.error};
  } else {
    if (!started_.notice.empty()) {  // said once: the precompiled header is not used, and why
      capture_->flush_then([&] { publish_stream("stderr", started_.notice); });
      started_.notice.clear();
    }
    discard_pending_interrupts();
    try {
      const Magic magic = read_magic(code);
      if (magic.kind == Magic::none) {
        outcome = run_cell(code);
      } else {
        outcome = run_magic(magic);
        if (outcome.status == RunOutcome::ok && !magic.rest.empty() && magic.kind != Magic::file)
          outcome = run_cell(magic.rest);
      }
    } catch (const std::invalid_argument& e) {
      outcome.status = RunOutcome::compile_error;
      outcome.ename = "PragmaError";
      outcome.evalue = e.what();
      outcome.traceback = {e.what()};
    }
  }
  capture_->end();

  if (outcome.status == RunOutcome::ok) return {{"status", "ok"}, {"payload", nl::json::array()},
                                                {"user_expressions", nl::json::object()}};
  // (xeus 2.4.1's create_error_reply swaps ename and evalue, so the reply is built here.)
  if (!silent) publish_execution_error(outcome.ename, outcome.evalue, outcome.traceback);
  return {{"status", "error"}, {"ename", outcome.ename}, {"evalue", outcome.evalue},
          {"traceback", outcome.traceback}};
}

void CppInterpreter::publish_from_cell(const std::string& kind, const std::string& json_text) {
  const nl::json message = nl::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return;
  capture_->flush_then([&] {
    const nl::json data = message.value("data", nl::json::object());
    const nl::json metadata = message.value("metadata", nl::json::object());
    const nl::json transient = message.value("transient", nl::json::object());
    if (kind == "execute_result") publish_execution_result(execution_count_, data, metadata);
    else if (kind == "display_data") display_data(data, metadata, transient);
    else if (kind == "update_display_data") update_display_data(data, metadata, transient);
    else if (kind == "clear_output") clear_output(message.value("wait", false));
  });
}

// ---- The other requests ----------------------------------------------------------

nl::json CppInterpreter::complete_request_impl(const std::string& code, int cursor_pos) {
  const std::size_t end = std::min<std::size_t>(static_cast<std::size_t>(std::max(cursor_pos, 0)), code.size());
  std::size_t start = end;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(code[start - 1])) || code[start - 1] == '_')) --start;
  const std::string prefix = code.substr(start, end - start);
  nl::json matches = nl::json::array();
  if (!prefix.empty())
    for (auto it = names_.lower_bound(prefix); it != names_.end() && it->compare(0, prefix.size(), prefix) == 0; ++it)
      matches.push_back(*it);
  return {{"status", "ok"}, {"matches", matches}, {"cursor_start", start}, {"cursor_end", end},
          {"metadata", nl::json::object()}};
}

nl::json CppInterpreter::inspect_request_impl(const std::string& code, int cursor_pos, int) {
  // The (qualified) name under the cursor, e.g. tg::layer_norm in `tg::layer_norm(x, {3})`.
  const std::size_t at = std::min<std::size_t>(static_cast<std::size_t>(std::max(cursor_pos, 0)), code.size());
  auto part_of_name = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(code[i])) || code[i] == '_' || code[i] == ':'; };
  std::size_t begin = at, end = at;
  while (begin > 0 && part_of_name(begin - 1)) --begin;
  while (end < code.size() && part_of_name(end)) ++end;
  const std::string name = code.substr(begin, end - begin);
  const std::string text = name.empty() || clang() == nullptr ? "" : without_wrappers(describe(*clang(), name));
  if (text.empty())
    return {{"status", "ok"}, {"found", false}, {"data", nl::json::object()}, {"metadata", nl::json::object()}};
  return {{"status", "ok"}, {"found", true}, {"data", {{"text/plain", text}}}, {"metadata", nl::json::object()}};
}

nl::json CppInterpreter::is_complete_request_impl(const std::string& code) {
  const std::string status = completeness(code);
  nl::json reply = {{"status", status}};
  if (status == "incomplete") reply["indent"] = "  ";
  return reply;
}

nl::json CppInterpreter::kernel_info_request_impl() {
  return {{"status", "ok"},
          {"protocol_version", "5.3"},
          {"implementation", "tapegrad-xcpp"},
          {"implementation_version", "0.1.0"},
          {"language_info",
           {{"name", "c++"}, {"version", "17"}, {"mimetype", "text/x-c++src"}, {"codemirror_mode", "text/x-c++src"},
            {"file_extension", ".cpp"}}},
          {"banner", "tapegrad-xcpp: C++17 through clang's incremental interpreter (clang 22), on xeus"},
          {"help_links", nl::json::array()}};
}

}  // namespace tapegrad_xcpp
