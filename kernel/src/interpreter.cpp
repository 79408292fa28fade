#include "interpreter.hpp"

#include "interrupt.hpp"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Interpreter/Interpreter.h>
#include <clang/Lex/DirectoryLookup.h>
#include <clang/Lex/HeaderSearch.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
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

}  // namespace

// ---- Start -----------------------------------------------------------------------

CppInterpreter::CppInterpreter(const KernelOptions& options) {
  install_interrupt_handler();

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // -resource-dir explicitly: otherwise clang derives it from this program's path, wrongly.
  std::vector<std::string> args = {"-resource-dir", options.resource_dir, "-std=c++17", "-fno-color-diagnostics"};
  for (const std::string& dir : options.include_dirs) args.push_back("-I" + dir);
  for (const std::string& arg : options.compiler_args) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  clang::IncrementalCompilerBuilder builder;
  builder.SetCompilerArgs(argv);
  auto ci = builder.CreateCpp();
  if (!ci) throw std::runtime_error("cannot set up clang: " + llvm::toString(ci.takeError()));
  auto interpreter = clang::Interpreter::create(std::move(*ci));
  if (!interpreter) throw std::runtime_error("cannot start clang's interpreter: " + llvm::toString(interpreter.takeError()));
  clang_ = std::move(*interpreter);

  capture_ = std::make_unique<OutputCapture>(
      [this](const std::string& stream, const std::string& text) { publish_stream(stream, text); });

  // JIT'd code reaches the kernel through this pointer (xcpp/xdisplay.hpp declares it).
  std::ostringstream preamble;
  preamble << "void (*tapegrad_xcpp_publish)(const char*, const char*) = "
           << "reinterpret_cast<void (*)(const char*, const char*)>(0x" << std::hex
           << reinterpret_cast<std::uintptr_t>(&publish_trampoline) << "ULL);";
  if (llvm::Error err = clang_->ParseAndExecute(preamble.str()))
    throw std::runtime_error("the kernel's preamble failed: " + llvm::toString(std::move(err)));
  the_kernel = this;
  for (const char* k : cxx_keywords) names_.insert(k);
}

CppInterpreter::~CppInterpreter() { the_kernel = nullptr; }

// ---- Running code ----------------------------------------------------------------

RunOutcome CppInterpreter::run(const std::string& code) {
  RunOutcome outcome;
  // Compile. Diagnostics go to llvm::errs() (fd 2): keep them for the error reply.
  capture_->set_keep(true);
  auto ptu = clang_->Parse(code);
  const std::string diagnostics = capture_->take(2);
  capture_->set_keep(false);
  if (!ptu) {
    llvm::consumeError(ptu.takeError());
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "CompileError";
    outcome.evalue = first_error(diagnostics);
    outcome.traceback = lines_of(diagnostics);
    return outcome;
  }
  if (!diagnostics.empty()) capture_->flush_then([&] { publish_stream("stderr", diagnostics); });  // warnings

  // Execute, interruptibly (interrupt.cpp).
  try {
    const bool finished = run_interruptibly([&] {
      if (llvm::Error err = clang_->Execute(*ptu)) {
        outcome.status = RunOutcome::compile_error;
        outcome.ename = "JITError";
        outcome.evalue = llvm::toString(std::move(err));
        outcome.traceback = lines_of(outcome.evalue);
      }
    });
    if (!finished) {
      outcome.status = RunOutcome::interrupted;
      outcome.ename = "Interrupted";
      outcome.evalue = "the cell was interrupted";
    }
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
  if (outcome.status == RunOutcome::exception)
    outcome.traceback = {outcome.ename + ": " + outcome.evalue};
  else if (outcome.status == RunOutcome::interrupted)
    outcome.traceback = {outcome.evalue};
  return outcome;
}

bool CppInterpreter::run_quietly(const std::string& code) {
  capture_->set_discard(true);
  auto ptu = clang_->Parse(code);
  bool ok = static_cast<bool>(ptu);
  if (!ok) llvm::consumeError(ptu.takeError());
  else if (llvm::Error err = clang_->Execute(*ptu)) {
    llvm::consumeError(std::move(err));
    ok = false;
  }
  capture_->flush_then([] {});
  capture_->set_discard(false);
  return ok;
}

// clang 22: after a failed input that had already generated code, the next one or two
// inputs can fail with "JIT session error: Symbols not found ... __orc_init_func...".
// Feeding trivial throwaway inputs until one succeeds clears that, so the learner's
// next cell works.
void CppInterpreter::recover_after_failure() {
  for (int attempt = 0; attempt < 5; ++attempt)
    if (run_quietly("void tapegrad_xcpp_recover_" + std::to_string(++throwaway_count_) + "() {}")) return;
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
    clang::CompilerInstance* ci = clang_->getCompilerInstance();
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
    if (llvm::Error err = clang_->LoadDynamicLibrary(library.c_str())) return fail(llvm::toString(std::move(err)));
  } else {
    return fail("unknown pragma; expected add_include_path, add_library_path or load");
  }
  return outcome;
}

nl::json CppInterpreter::execute_request_impl(int execution_counter, const std::string& code, bool silent,
                                              bool /*store_history*/, nl::json /*user_expressions*/,
                                              bool /*allow_stdin*/) {
  execution_count_ = execution_counter;
  discard_pending_interrupts();
  RunOutcome outcome;
  capture_->begin();
  try {
    const Cell cell = read_cell(code);
    for (const ClingPragma& pragma : cell.pragmas) {
      outcome = apply(pragma);
      if (outcome.status != RunOutcome::ok) break;
    }
    if (outcome.status == RunOutcome::ok && !cell.trailing_expression.empty() && !display_header_loaded_) {
      outcome = run("#include <xcpp/xdisplay.hpp>");
      display_header_loaded_ = outcome.status == RunOutcome::ok;
    }
    if (outcome.status == RunOutcome::ok) {
      std::string source = cell.body;
      // The result is shown by the initialiser of a fresh variable, not by a statement: clang 22
      // mis-mangles a lambda inside a top-level statement (it reads a TopLevelStmtDecl as a
      // NamedDecl; llvm-project PR 217041), which crashed the kernel now and then. Same lines as
      // the cell, so diagnostics point at the right one.
      if (!cell.trailing_expression.empty())
        source += "int tapegrad_xcpp_result_" + std::to_string(++throwaway_count_) +
                  " = xcpp::detail::show_result([]() -> decltype(auto) { return (" + cell.trailing_expression +
                  "\n); });";
      if (source.find_first_not_of(" \t\r\n") != std::string::npos) outcome = run(source);
    }
    if (outcome.status == RunOutcome::ok)
      for (const std::string& name : identifiers_in(code)) names_.insert(name);
  } catch (const std::invalid_argument& e) {
    outcome.status = RunOutcome::compile_error;
    outcome.ename = "PragmaError";
    outcome.evalue = e.what();
    outcome.traceback = {e.what()};
  }
  if (outcome.status != RunOutcome::ok && outcome.ename != "PragmaError") recover_after_failure();
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

nl::json CppInterpreter::inspect_request_impl(const std::string&, int, int) {
  return {{"status", "ok"}, {"found", false}, {"data", nl::json::object()}, {"metadata", nl::json::object()}};
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
