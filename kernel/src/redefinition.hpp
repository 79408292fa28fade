#pragma once
// Re-running a cell that defines something: the newer definition wins.
//
// cell_wrap.cpp puts each redefinable top-level declaration of a cell in an inline namespace
// of its own (`inline namespace __tgx_7_1 { double sq(double v) { ... } }`; inside a learner's
// `namespace my { ... }` block too, one level down), so the new `sq`
// has its own mangled name and its own JIT symbol. Both would still be found by lookup (the
// members of an inline namespace are visible in the enclosing one), so, as soon as clang has
// parsed such a namespace, this AST consumer takes the older declarations of the same names
// (in other __tgx_ namespaces) out of the lookup tables: later code, the rest of the same cell
// included, sees only the new one. Code compiled earlier keeps calling the old one (it is not
// unloaded), as in cling, whose DefinitionShadower is the model. A function hides only an
// older function with the same parameter types (other overloads stay).

#include <memory>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Interpreter/Interpreter.h>

namespace clang {
class NamedDecl;
class NamespaceDecl;
}  // namespace clang

namespace tapegrad_xcpp {

class RedefinitionHider : public clang::ASTConsumer {
 public:
  void Initialize(clang::ASTContext& context) override { context_ = &context; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override;
  // What the cells compiled since the last call declared (in __tgx_ namespaces) and hid.
  struct Changes {
    std::vector<clang::NamedDecl*> introduced, hidden;
  };
  Changes take_changes();
  // %undo: the names a cell introduced leave lookup, and the ones it hid come back.
  static void revert(const Changes& changes);

 private:
  void handle_namespace(clang::NamespaceDecl* ns);
  void hide_older(clang::NamespaceDecl* wrapper);
  void hide_older_named(clang::NamespaceDecl* wrapper, clang::NamedDecl* newer);
  clang::ASTContext* context_ = nullptr;
  Changes changes_;
};

// clang's Interpreter with the hider in its AST consumers (the protected constructor is how
// clang lets a program add a consumer). Unlike Interpreter::create it parses no value-printing
// runtime: the kernel prints results itself (xcpp/xdisplay.hpp), and __CLANG_REPL__ comes from
// the command line (-D), so that a precompiled header sees the same macros.
class KernelClang : public clang::Interpreter {
 public:
  // nullptr and error set if clang cannot start.
  static std::unique_ptr<KernelClang> create(std::unique_ptr<clang::CompilerInstance> compiler,
                                             RedefinitionHider*& hider, std::string& error);

 private:
  KernelClang(std::unique_ptr<clang::CompilerInstance> compiler, llvm::Error& error,
              std::unique_ptr<clang::ASTConsumer> consumer)
      : clang::Interpreter(std::move(compiler), error, nullptr, std::move(consumer)) {}
};

}  // namespace tapegrad_xcpp
