// The precompiled header (kernel/CMakeLists.txt makes it: tapegrad's headers, xtensor,
// nlohmann/json, xcpp's display headers) turns the first #include cell from ~3 s of parsing
// into a lookup. clang must never be handed one it cannot use: a PCH older than a header it
// was made from is a fatal error, and one it cannot read may end the process. So, before
// clang sees it, the kernel checks
//   1. every header listed in <pch>.d (clang's dependency file, written with the PCH) still
//      exists and is not newer than the PCH (else: stale, the notice names the header);
//   2. <pch>.ok, written by `tapegrad-xcpp --probe-pch` at build time after clang loaded it
//      and found tapegrad's declarations in it, is newer than the PCH (else: a forked child
//      tries it first, and a crash or refusal there only means "no PCH");
//   3. clang, started with it, has tapegrad's namespace (else: refused, start again without).
// Without the PCH the kernel works as before: the #include cell parses the headers.

#include "clang_start.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <clang/AST/ASTContext.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Interpreter/Interpreter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

namespace tapegrad_xcpp {

namespace {

bool modified_time(const std::string& path, timespec& when) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  when = st.st_mtim;
  return true;
}

bool newer(const timespec& a, const timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

// The files a make-style dependency file lists ("out.pch: a.hpp b.hpp \ ...").
std::vector<std::string> dependencies(const std::string& depfile) {
  std::ifstream in(depfile);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  const std::size_t colon = all.find(": ");
  if (colon == std::string::npos) return {};
  std::vector<std::string> out;
  std::string current;
  for (std::size_t i = colon + 2; i < all.size(); ++i) {
    const char c = all[i];
    if (c == '\\' && i + 1 < all.size() && (all[i + 1] == '\n' || all[i + 1] == '\r')) continue;
    if (c == '\\' && i + 1 < all.size() && all[i + 1] == ' ') { current += ' '; ++i; continue; }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// "" if the PCH's headers are unchanged, else what changed.
std::string staleness(const std::string& pch) {
  timespec made{};
  if (!modified_time(pch, made)) return "it does not exist";
  char magic[4] = {};
  std::FILE* f = std::fopen(pch.c_str(), "rb");
  const bool read = f != nullptr && std::fread(magic, 1, 4, f) == 4;
  if (f != nullptr) std::fclose(f);
  if (!read || std::string(magic, 4) != "CPCH") return "it is not a precompiled header";
  const std::vector<std::string> headers = dependencies(pch + ".d");
  if (headers.empty()) return "its list of headers (" + pch + ".d) is missing";
  for (const std::string& header : headers) {
    timespec changed{};
    if (!modified_time(header, changed)) return header + " is gone";
    if (newer(changed, made)) return header + " changed after it was made";
  }
  return "";
}

std::unique_ptr<clang::CompilerInstance> compiler(const KernelOptions& options, bool with_pch, std::string& error) {
  // -resource-dir explicitly: otherwise clang derives it from this program's path, wrongly.
  // __CLANG_REPL__ as clang-repl defines it (its runtime, which defines it there, is not parsed).
  // -Werror=return-type: `int f() { }` is an error, as in cling (a learner's missing return is a bug,
  // not a warning to scroll past). The precompiled header is made with the same flags (kernel/CMakeLists.txt).
  std::vector<std::string> args = {"-resource-dir", options.resource_dir, "-std=c++17", "-fno-color-diagnostics",
                                   "-D__CLANG_REPL__=1", "-Werror=return-type"};
  for (const std::string& dir : options.include_dirs) args.push_back("-I" + dir);
  if (with_pch) args.insert(args.end(), {"-include-pch", options.precompiled_header});
  for (const std::string& arg : options.compiler_args) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  clang::IncrementalCompilerBuilder builder;
  builder.SetCompilerArgs(argv);
  auto ci = builder.CreateCpp();
  if (!ci) {
    error = llvm::toString(ci.takeError());
    return nullptr;
  }
  return std::move(*ci);
}

// Whether clang, started with the PCH, knows namespace tapegrad (so the PCH was read).
bool has_tapegrad(KernelClang& clang) {
  clang::ASTContext& context = clang.getASTContext();
  return !context.getTranslationUnitDecl()->lookup(clang::DeclarationName(&context.Idents.get("tapegrad"))).empty();
}

bool start_with_pch(const KernelOptions& options, ClangStart& out) {
  std::string error;
  auto ci = compiler(options, true, error);
  if (ci) out.clang = KernelClang::create(std::move(ci), out.hider, error);
  if (out.clang && has_tapegrad(*out.clang)) return true;
  out.clang.reset();
  out.notice = "clang refused the precompiled header " + options.precompiled_header +
               (error.empty() ? std::string() : " (" + error + ")");
  return false;
}

// Tries the PCH in a forked child: true if clang read it there and lived.
bool works_in_child(const KernelOptions& options) {
  const pid_t child = fork();
  if (child == 0) {
    ClangStart trial;
    _exit(start_with_pch(options, trial) ? 0 : 1);
  }
  if (child < 0) return false;
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void initialize_llvm() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();
}

}  // namespace

ClangStart start_clang(const KernelOptions& options) {
  initialize_llvm();
  ClangStart out;
  const std::string& pch = options.precompiled_header;
  if (!pch.empty()) {
    const std::string stale = staleness(pch);
    timespec made{}, probed{};
    const bool trusted = modified_time(pch, made) && modified_time(pch + ".ok", probed) && !newer(made, probed);
    if (!stale.empty())
      out.notice = "the precompiled header " + pch + " is not used: " + stale;
    else if (!trusted && !works_in_child(options))
      out.notice = "the precompiled header " + pch + " is not used: clang could not load it (tried in a child process)";
    else if (start_with_pch(options, out))
      out.with_pch = true;
  }
  if (!out.clang) {
    std::string error;
    auto ci = compiler(options, false, error);
    if (ci) out.clang = KernelClang::create(std::move(ci), out.hider, error);
    if (!out.clang) out.error = "cannot start clang's interpreter: " + error;
  }
  if (!out.notice.empty())
    out.notice = "tapegrad-xcpp: " + out.notice +
                 ". The kernel parses the headers instead (the first #include is slower). Rebuild the kernel "
                 "(cmake --build build --target tapegrad-xcpp) to precompile them again.\n";
  return out;
}

int probe_precompiled_header(const KernelOptions& options) {
  initialize_llvm();
  const std::string stale = staleness(options.precompiled_header);
  if (!stale.empty()) {
    std::fprintf(stderr, "tapegrad-xcpp --probe-pch: %s\n", stale.c_str());
    return 1;
  }
  ClangStart trial;
  if (!start_with_pch(options, trial)) {
    std::fprintf(stderr, "tapegrad-xcpp --probe-pch: %s\n", trial.notice.c_str());
    return 1;
  }
  std::ofstream(options.precompiled_header + ".ok") << "loaded by tapegrad-xcpp --probe-pch\n";
  return 0;
}

}  // namespace tapegrad_xcpp
