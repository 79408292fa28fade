#include "help.hpp"

#include <sstream>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Interpreter/Interpreter.h>

namespace tapegrad_xcpp {

namespace {

std::vector<std::string> parts_of(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t at = name.rfind("::", 0) == 0 ? 2 : 0;
  while (at <= name.size()) {
    const std::size_t next = name.find("::", at);
    parts.push_back(name.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 2;
  }
  return parts;
}

// The context a name leads into (a namespace, an alias's namespace, a class), or null.
clang::DeclContext* context_of(clang::NamedDecl* d) {
  if (auto* alias = llvm::dyn_cast<clang::NamespaceAliasDecl>(d)) return alias->getNamespace();
  if (auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(d)) return ns;
  if (auto* tmpl = llvm::dyn_cast<clang::ClassTemplateDecl>(d)) d = tmpl->getTemplatedDecl();
  if (auto* typedef_ = llvm::dyn_cast<clang::TypedefNameDecl>(d))
    if (auto* record = typedef_->getUnderlyingType()->getAsCXXRecordDecl()) d = record;
  if (auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(d)) return record->getDefinition();
  return nullptr;
}

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

// The comment lines right above offset's line, then the declaration up to its body or ';'.
std::string text_at(llvm::StringRef buffer, std::size_t offset) {
  // (llvm::StringRef::rfind(c, from) looks before from, not at it: unlike std::string's.)
  std::size_t line_start = buffer.rfind('\n', offset);
  line_start = line_start == llvm::StringRef::npos ? 0 : line_start + 1;
  std::vector<std::string> comment;
  std::size_t end = line_start;
  bool in_block = false;
  while (end > 0 && comment.size() < 30) {
    const std::size_t prev_end = end - 1;  // the '\n' ending the previous line
    std::size_t prev_start = buffer.rfind('\n', prev_end);
    prev_start = prev_start == llvm::StringRef::npos ? 0 : prev_start + 1;
    const std::string line = buffer.substr(prev_start, prev_end - prev_start).str();
    const std::string t = trimmed(line);
    const bool is_comment = in_block || t.rfind("//", 0) == 0 || (t.size() >= 2 && t.compare(t.size() - 2, 2, "*/") == 0);
    if (!is_comment) break;
    if (!in_block && t.size() >= 2 && t.compare(t.size() - 2, 2, "*/") == 0 && t.find("/*") == std::string::npos)
      in_block = true;
    else if (in_block && t.find("/*") != std::string::npos)
      in_block = false;
    comment.insert(comment.begin(), line);
    end = prev_start;
  }
  std::ostringstream out;
  for (const std::string& c : comment) out << c << "\n";
  int depth = 0;
  std::size_t lines = 0;
  // From the declaration itself when something precedes it on its line (a cell's wrapper).
  const std::string before = buffer.substr(line_start, offset - line_start).str();
  const std::size_t from = trimmed(before).empty() ? line_start : offset;
  for (std::size_t i = from; i < buffer.size() && lines < 12; ++i) {
    const char c = buffer[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (depth <= 0 && (c == '{' || c == ';')) {
      out << (c == '{' ? "{ ... }" : ";");
      break;
    }
    out << c;
    if (c == '\n') ++lines;
  }
  return out.str();
}

}  // namespace

std::string describe(clang::Interpreter& interpreter, const std::string& name) {
  clang::ASTContext& context = interpreter.getASTContext();
  const std::vector<std::string> parts = parts_of(name);
  clang::DeclContext* scope = context.getTranslationUnitDecl();
  std::vector<clang::NamedDecl*> found;
  for (std::size_t i = 0; i < parts.size() && scope != nullptr; ++i) {
    if (parts[i].empty()) return "";
    const clang::DeclarationName key(&context.Idents.get(parts[i]));
    clang::DeclContext* next = nullptr;
    // The scope itself, then (for a name written without ::, as a cell would use it) the namespaces
    // that a `using namespace N;` of a cell brought in.
    std::vector<clang::DeclContext*> scopes = {scope};
    if (i == 0 && name.rfind("::", 0) != 0)
      for (clang::UsingDirectiveDecl* u : context.getTranslationUnitDecl()->using_directives())
        if (clang::NamespaceDecl* ns = u->getNominatedNamespace()) scopes.push_back(ns);
    for (clang::DeclContext* where : scopes) {
      for (clang::NamedDecl* d : where->getPrimaryContext()->lookup(key)) {
        if (i + 1 == parts.size()) found.push_back(d);
        else if (next == nullptr) next = context_of(d);
      }
      if (!found.empty() || next != nullptr) break;
    }
    scope = next;
  }
  const clang::SourceManager& sources = context.getSourceManager();
  std::ostringstream out;
  int shown = 0;
  for (clang::NamedDecl* d : found) {
    if (++shown > 6) {
      out << "(and " << found.size() - 6 << " more)\n";
      break;
    }
    const clang::SourceLocation at = sources.getExpansionLoc(d->getBeginLoc());
    if (at.isInvalid()) continue;
    const clang::FileID file = sources.getFileID(at);
    bool invalid = false;
    const llvm::StringRef buffer = sources.getBufferData(file, &invalid);
    if (invalid) continue;
    std::string where = sources.getFilename(at).str();
    if (where.empty() || where.rfind("input_line_", 0) == 0) where = "a cell";
    out << where << ":" << sources.getExpansionLineNumber(at) << "\n"
        << text_at(buffer, sources.getFileOffset(at)) << "\n\n";
  }
  return out.str();
}

}  // namespace tapegrad_xcpp
