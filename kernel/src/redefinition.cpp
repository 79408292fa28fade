#include "redefinition.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclContextInternals.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Sema/Sema.h>
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

// The primary namespace of a (possibly reopened) kernel namespace: a cell reopens its own one
// between its statements.
const clang::DeclContext* primary(const clang::DeclContext* context) {
  return const_cast<clang::DeclContext*>(context)->getPrimaryContext();
}

// As cling's DefinitionShadower: a template is a definition if what it declares is one.
bool is_definition(const clang::Decl* d) {
  if (const auto* f = llvm::dyn_cast<clang::FunctionDecl>(d)) return f->isThisDeclarationADefinition();
  if (const auto* tag = llvm::dyn_cast<clang::TagDecl>(d)) return tag->isThisDeclarationADefinition();
  if (const auto* v = llvm::dyn_cast<clang::VarDecl>(d))
    return v->isThisDeclarationADefinition() != clang::VarDecl::DeclarationOnly;
  if (const auto* t = llvm::dyn_cast<clang::TemplateDecl>(d))
    return llvm::isa<clang::ConceptDecl>(t) || t->getTemplatedDecl() == nullptr || is_definition(t->getTemplatedDecl());
  return true;
}

clang::FunctionDecl* as_function(clang::NamedDecl* d) {
  if (auto* t = llvm::dyn_cast<clang::FunctionTemplateDecl>(d)) return t->getTemplatedDecl();
  return llvm::dyn_cast<clang::FunctionDecl>(d);
}

// Whether a cell declared d (clang names each input "input_line_N"), not a header.
bool typed_in_cell(const clang::ASTContext& context, const clang::Decl* d) {
  const clang::SourceManager& sm = context.getSourceManager();
  const clang::SourceLocation at = sm.getFileLoc(d->getLocation());
  return at.isValid() && sm.getBufferName(at).starts_with("input_line_");
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

bool RedefinitionHider::overloads(clang::NamedDecl* newer, clang::NamedDecl* old) const {
  clang::FunctionDecl* new_function = as_function(newer);
  clang::FunctionDecl* old_function = as_function(old);
  if (new_function == nullptr || old_function == nullptr || sema_ == nullptr) return false;
  // (for templates, IsOverload compares as C++ [temp.over.link] says: enable_if return types differ)
  return sema_->IsOverload(new_function, old_function, /*UseMemberUsingDeclRules=*/false);
}

// A variable named as a function (or the other way round) that a cell declared outside the kernel's
// namespaces: an error in C++, which clang cannot see across namespaces.
void RedefinitionHider::diagnose_clash(clang::NamedDecl* newer, clang::NamedDecl* old) const {
  if (sema_ == nullptr || context_ == nullptr || !typed_in_cell(*context_, old)) return;
  const bool new_function = as_function(newer) != nullptr, old_function = as_function(old) != nullptr;
  const bool variable = llvm::isa<clang::VarDecl>(newer) || llvm::isa<clang::VarDecl>(old);
  if (new_function == old_function || !variable) return;
  sema_->Diag(newer->getLocation(), clang::diag::err_redefinition_different_kind) << newer->getDeclName();
  sema_->Diag(old->getLocation(), clang::diag::note_previous_definition);
  newer->setInvalidDecl();
}

void RedefinitionHider::hide_older_named(clang::NamespaceDecl* wrapper, clang::NamedDecl* newer) {
  clang::DeclContext* outer = wrapper->getParent()->getPrimaryContext();
  std::vector<clang::NamedDecl*> older;
  bool older_definition = false;
  for (clang::NamedDecl* old : outer->lookup(newer->getDeclName())) {
    if (old == newer || primary(home_of(old)) == primary(wrapper)) continue;  // same cell: clang's own rules
    if (!is_kernel_wrapper(home_of(old))) {
      diagnose_clash(newer, old);
      continue;
    }
    if (is_definition(old) && !is_definition(newer)) {
      older_definition = true;  // `int f();` after `int f() {...}`: the definition stays
      continue;
    }
    if (overloads(newer, old)) continue;  // an overload joins
    older.push_back(old);
  }
  // Out of lookup in its cell's namespace and in the enclosing one, where the inline namespace shows it.
  const auto leave_lookup = [outer](clang::NamedDecl* d) {
    remove_from_lookup(const_cast<clang::DeclContext*>(home_of(d)), d);
    remove_from_lookup(outer, d);
  };
  for (clang::NamedDecl* old : older) {
    leave_lookup(old);
    changes_.hidden.push_back(old);
    // an unscoped enum's enumerators go with it (cling): `enum E { a }` then `enum E { b }` leaves no `a`
    if (auto* e = llvm::dyn_cast<clang::EnumDecl>(old); e != nullptr && !e->isScoped())
      for (clang::EnumConstantDecl* c : e->enumerators()) {
        leave_lookup(c);
        changes_.hidden.push_back(c);
      }
  }
  if (older_definition) leave_lookup(newer);
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
  hider->set_sema(&clang->getCompilerInstance()->getSema());
  return clang;
}

}  // namespace tapegrad_xcpp
