#pragma once
// Re-running a cell that defines something: the newer definition wins, as in cling.
//
// cell_wrap.cpp puts a cell's redefinable top-level declarations in ONE inline namespace of
// that cell (`inline namespace __tgx_7 { double sq(double v) { ... } }`; inside a learner's
// `namespace my { ... }` block too, one level down), as cling's DefinitionShadower does with its
// `__cling_N5<n>` namespaces: declarations of one cell complete each other (a forward declaration
// and its definition) and two definitions of one name in a cell are an error, as in C++; the new
// `sq` has its own mangled name and its own JIT symbol. Both the old and the new `sq` would still
// be found by lookup (the members of an inline namespace are visible in the enclosing one), so,
// as soon as clang has parsed such a namespace, this AST consumer takes the older declarations
// that the new one would clash with (in other __tgx_ namespaces) out of the lookup tables: later
// code, the rest of the same cell included, sees only the new one. Code compiled earlier keeps
// calling the old one (it is not unloaded), as in cling. The rules are cling's
// (lib/Interpreter/DefinitionShadower.cpp):
//   - a function or function template hides only what it does not overload (Sema::IsOverload:
//     two `enable_if` templates of `f` in two cells join);
//   - a declaration after a definition hides nothing and is itself hidden (`int f();` after
//     `int f() {...}`, `class C;` after `class C {...}`: the definition stays);
//   - a declaration of a cell outside any __tgx_ namespace (`extern "C" double g(double);`) is
//     not hidden; a variable of its name is an error, as in C++ ("different kind of symbol").

#include <memory>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Interpreter/Interpreter.h>

namespace clang {
class NamedDecl;
class NamespaceDecl;
class Sema;
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
  // Sema decides what overloads what; the hider works without it (no overload joins then).
  void set_sema(clang::Sema* sema) { sema_ = sema; }

 private:
  void handle_namespace(clang::NamespaceDecl* ns);
  void hide_older(clang::NamespaceDecl* wrapper);
  void hide_older_named(clang::NamespaceDecl* wrapper, clang::NamedDecl* newer);
  bool overloads(clang::NamedDecl* newer, clang::NamedDecl* old) const;
  void diagnose_clash(clang::NamedDecl* newer, clang::NamedDecl* old) const;
  clang::ASTContext* context_ = nullptr;
  clang::Sema* sema_ = nullptr;
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
