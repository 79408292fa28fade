// tape_table(): the tape as a table (its picture is draw_dot()/draw(), draw_graph.cpp).
#include "tapegrad/debug/tape_view.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <xtensor/xnorm.hpp>

namespace tapegrad {

namespace {

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

}  // namespace tapegrad
