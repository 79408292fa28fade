// tape_table() and to_dot(): the tape as a table and as a Graphviz graph.
#include "tapegrad/debug/tape_view.hpp"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include <xtensor/xnorm.hpp>

namespace tapegrad {

namespace {

// Is `x` the output of an entry of this tape (and not of an older, released one)?
bool made_on(const Tape& t, const Tensor& x) {
  const TensorImpl& impl = x.impl();
  return impl.tape_index >= 0 && impl.tape_generation == t.generation &&
         static_cast<std::size_t>(impl.tape_index) < t.size() && t[impl.tape_index].output.same(x);
}

// "#3 (2, 4)" for the output of entry 3, else the tensor's label.
std::string ref(const Tape& t, const Tensor& x) {
  return made_on(t, x) ? "#" + std::to_string(x.impl().tape_index) + " " + x.label() : x.label();
}

std::string norm_str(const Array& a) {
  std::ostringstream out;
  out << std::setprecision(4) << xt::norm_l2(a)();
  return out.str();
}

std::string grad_norm_str(const Tensor& x) { return x.has_grad() ? norm_str(x.grad()) : "-"; }

// The leaves the tape reads (inputs that no entry made), in order of first use.
std::vector<Tensor> leaves(const Tape& t) {
  std::vector<Tensor> found;
  for (const TapeEntry& e : t.entries)
    for (const Tensor& in : e.inputs) {
      if (made_on(t, in)) continue;
      bool seen = false;
      for (const Tensor& f : found) seen = seen || f.same(in);
      if (!seen) found.push_back(in);
    }
  return found;
}

// Pads the cells of each column to a common width.
std::string format_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += ' ';
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size(), ' ') + ' ';
    }
    out << line << '\n';
  }
  return out.str();
}

// A string as a dot label: quotes and backslashes escaped, newlines as \n.
std::string dot_quote(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '\n') {
      q += "\\n";  // dot's line break inside a label
      continue;
    }
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + '"';
}

}  // namespace

std::string tape_table(const Tape& t) {
  std::ostringstream out;
  out << "Tape with " << t.size() << (t.size() == 1 ? " entry" : " entries") << '\n';
  if (t.empty()) return out.str();
  std::vector<std::vector<std::string>> rows{{"#", "op", "inputs", "output", "|value|", "|grad|"}};
  for (std::size_t i = 0; i < t.size(); ++i) {
    const TapeEntry& e = t[i];
    std::string inputs;
    for (std::size_t k = 0; k < e.inputs.size(); ++k) inputs += (k ? ", " : "") + ref(t, e.inputs[k]);
    rows.push_back({std::to_string(i), e.op, inputs, e.output.label(), norm_str(e.output.value()),
                    grad_norm_str(e.output)});
  }
  out << format_rows(rows);

  std::vector<std::vector<std::string>> leaf_rows{{"leaf", "requires_grad", "|value|", "|grad|"}};
  for (const Tensor& x : leaves(t))
    leaf_rows.push_back({x.label(), x.requires_grad() ? "yes" : "no", norm_str(x.value()), grad_norm_str(x)});
  out << format_rows(leaf_rows);
  out << "  (|x| is the L2 norm; an op output keeps its grad after backward() only with retain_grad())\n";
  return out.str();
}

std::string to_dot(const Tape& t) {
  std::ostringstream out;
  out << "digraph tape {\n"
      << "  rankdir=TB;\n"
      << "  node [fontname=\"monospace\", fontsize=10];\n"
      << "  edge [fontname=\"monospace\", fontsize=9];\n";
  std::map<const TensorImpl*, std::string> ids;  // one node per tensor, however often it is used
  auto node = [&](const Tensor& x, const char* fill) {
    auto [it, added] = ids.emplace(&x.impl(), "t" + std::to_string(ids.size()));
    if (added) {
      std::string label = x.name().empty() ? "" : x.name() + "\n";
      label += shape_str(x.shape());
      if (x.has_grad()) label += "\ngrad |" + norm_str(x.grad()) + "|";
      out << "  " << it->second << " [shape=ellipse, style=filled, fillcolor=" << fill
          << ", label=" << dot_quote(label) << "];\n";
    }
    return it->second;
  };
  for (const Tensor& x : leaves(t)) node(x, x.requires_grad() ? "lightblue" : "white");
  for (std::size_t i = 0; i < t.size(); ++i) {
    const TapeEntry& e = t[i];
    const std::string op = "op" + std::to_string(i);
    out << "  " << op << " [shape=box, style=\"rounded,filled\", fillcolor=lightgrey, label="
        << dot_quote("#" + std::to_string(i) + " " + e.op) << "];\n";
    // node() may write the tensor's declaration, so call it before starting an edge line.
    for (std::size_t k = 0; k < e.inputs.size(); ++k) {
      const std::string in = node(e.inputs[k], "lightyellow");
      out << "  " << in << " -> " << op;
      if (e.inputs.size() > 1) out << " [label=\"" << k << "\"]";
      out << ";\n";
    }
    const std::string result = node(e.output, "lightyellow");
    out << "  " << op << " -> " << result << ";\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace tapegrad
