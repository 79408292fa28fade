#pragma once
// Starting clang's interpreter for the kernel, with the precompiled header if it can be
// trusted (see clang_start.cpp), else without it, and a notice that says why, once.

#include <memory>
#include <string>
#include <vector>

#include "redefinition.hpp"

namespace tapegrad_xcpp {

struct KernelOptions {
  std::string resource_dir;               // clang's own headers (clang-22 -print-resource-dir)
  std::vector<std::string> include_dirs;  // the kernel's xcpp/ headers, and any -I given
  std::vector<std::string> compiler_args; // more clang arguments (e.g. -O1)
  std::string precompiled_header;         // tapegrad + xtensor + nlohmann/json, made at build time ("" = none)
};

struct ClangStart {
  std::unique_ptr<KernelClang> clang;
  RedefinitionHider* hider = nullptr;
  bool with_pch = false;
  std::string notice;  // why the precompiled header is not used ("" if it is, or none was given)
  std::string error;   // why clang could not start at all
};

ClangStart start_clang(const KernelOptions& options);

// tapegrad-xcpp --probe-pch: starts clang with the precompiled header, checks that it holds
// tapegrad's declarations, and writes <pch>.ok. The build does this once, so a kernel trusts
// the file without trying it in a child process each time it starts. 0 if it is usable.
int probe_precompiled_header(const KernelOptions& options);

}  // namespace tapegrad_xcpp
