#include "redefinition.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclContextInternals.h>
#include <clang/Frontend/CompilerInstance.h>
#include <llvm/Support/Error.h>

#include "cell_wrap.hpp"

namespace tapegrad_xcpp {

namespace {

bool is_kernel_wrapper(const clang::DeclContext* context) {
  const auto* ns = llvm::dyn_cast_or_null<clang::NamespaceDecl>(context);
  return ns != nullptr && ns->isInline() && ns->getName().starts_with(kKernelNamePrefix);
}

// The namespace a declaration is a member of, skipping unscoped enums (for enumerators).
const clang::DeclContext* home_of(const clang::NamedDecl* d) { return d->getDeclContext()->getRedeclContext(); }

bool same_parameters(clang::ASTContext& context, const clang::FunctionDecl* a, const clang::FunctionDecl* b) {
  if (a->getNumParams() != b->getNumParams()) return false;
  for (unsigned i = 0; i < a->getNumParams(); ++i)
    if (!context.hasSameUnqualifiedType(a->getParamDecl(i)->getType(), b->getParamDecl(i)->getType())) return false;
  return true;
}

// Takes d out of the lookup table of context (not out of the AST: code may still use it).
void remove_from_lookup(clang::DeclContext* context, clang::NamedDecl* d) {
  clang::StoredDeclsMap* map = context->getPrimaryContext()->getLookupPtr();
  if (map == nullptr) return;
  auto it = map->find(d->getDeclName());
  if (it == map->end()) return;
  it->second.remove(d);
  if (it->second.isNull()) map->erase(it);
}

}  // namespace

bool RedefinitionHider::HandleTopLevelDecl(clang::DeclGroupRef group) {
  for (clang::Decl* d : group)
    if (auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(d)) handle_namespace(ns);
  return true;
}

// A cell's wrapper, or a learner's namespace block whose declarations the kernel wrapped (cell_wrap.cpp).
void RedefinitionHider::handle_namespace(clang::NamespaceDecl* ns) {
  if (is_kernel_wrapper(ns)) {
    hide_older(ns);
    return;
  }
  for (clang::Decl* d : ns->decls())
    if (auto* inner = llvm::dyn_cast<clang::NamespaceDecl>(d)) handle_namespace(inner);
}

void RedefinitionHider::hide_older(clang::NamespaceDecl* wrapper) {
  for (clang::Decl* d : wrapper->decls()) {
    auto* named = llvm::dyn_cast<clang::NamedDecl>(d);
    if (named == nullptr || named->getDeclName().isEmpty()) continue;
    hide_older_named(wrapper, named);
    changes_.introduced.push_back(named);
    if (auto* e = llvm::dyn_cast<clang::EnumDecl>(named); e != nullptr && !e->isScoped())
      for (clang::EnumConstantDecl* c : e->enumerators()) {
        hide_older_named(wrapper, c);
        changes_.introduced.push_back(c);
      }
  }
}

void RedefinitionHider::hide_older_named(clang::NamespaceDecl* wrapper, clang::NamedDecl* newer) {
  clang::DeclContext* outer = wrapper->getParent()->getPrimaryContext();
  std::vector<clang::NamedDecl*> older;
  for (clang::NamedDecl* old : outer->lookup(newer->getDeclName())) {
    if (old == newer || home_of(old) == wrapper || !is_kernel_wrapper(home_of(old))) continue;
    const auto* old_function = llvm::dyn_cast<clang::FunctionDecl>(old);
    const auto* new_function = llvm::dyn_cast<clang::FunctionDecl>(newer);
    if (old_function != nullptr && new_function != nullptr && context_ != nullptr &&
        !same_parameters(*context_, old_function, new_function))
      continue;  // an overload, not a redefinition
    older.push_back(old);
  }
  for (clang::NamedDecl* old : older) {
    remove_from_lookup(const_cast<clang::DeclContext*>(home_of(old)), old);
    remove_from_lookup(outer, old);
    changes_.hidden.push_back(old);
  }
}

RedefinitionHider::Changes RedefinitionHider::take_changes() {
  Changes out;
  std::swap(out, changes_);
  return out;
}

void RedefinitionHider::revert(const Changes& changes) {
  for (clang::NamedDecl* d : changes.introduced) {
    remove_from_lookup(const_cast<clang::DeclContext*>(home_of(d)), d);
    remove_from_lookup(const_cast<clang::DeclContext*>(home_of(d))->getParent(), d);
  }
  // (makeDeclVisibleInContext also makes it visible in the enclosing namespace of an inline one)
  for (clang::NamedDecl* d : changes.hidden) d->getDeclContext()->makeDeclVisibleInContext(d);
}

std::unique_ptr<KernelClang> KernelClang::create(std::unique_ptr<clang::CompilerInstance> compiler,
                                                 RedefinitionHider*& hider, std::string& error) {
  auto consumer = std::make_unique<RedefinitionHider>();
  hider = consumer.get();
  llvm::Error err = llvm::Error::success();
  std::unique_ptr<KernelClang> clang(new KernelClang(std::move(compiler), err, std::move(consumer)));
  if (err) {
    error = llvm::toString(std::move(err));
    return nullptr;
  }
  return clang;
}

}  // namespace tapegrad_xcpp
