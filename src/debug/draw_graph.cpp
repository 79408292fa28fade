// The tape as a graph: boxes, tensors and edges, and their Graphviz source (draw_dot).
#include "draw_graph.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include <xtensor/xnorm.hpp>
#include <xtensor/xsort.hpp>

#include "tapegrad/nn/module.hpp"

namespace tapegrad::detail {

namespace {

// Ops recorded as one entry with a hand-written backward for a whole formula. Every other op is
// a primitive: a composed formula (tapegrad::composed::layer_norm) is a chain of them.
bool is_fused(const std::string& op) {
  static const std::set<std::string> fused{"layer_norm", "rms_norm", "batch_norm", "linear", "feed_forward",
                                           "softmax", "log_softmax", "cross_entropy", "mse_loss",
                                           "scaled_dot_product_attention", "gelu", "gelu_tanh", "silu", "swiglu",
                                           "embedding", "rotary_embedding"};
  return fused.count(op) > 0;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void nested(std::ostringstream& out, const Array& a, std::size_t axis, std::size_t& flat) {
  if (axis == a.dimension()) {
    out << number(a.data()[flat++]);
    return;
  }
  out << '[';
  for (std::size_t i = 0; i < a.shape()[axis]; ++i) {
    if (i) out << ", ";
    nested(out, a, axis + 1, flat);
  }
  out << ']';
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, by)) parts.push_back(part);
  return parts;
}

std::string join(const std::vector<std::string>& parts, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < std::min(count, parts.size()); ++i) out += (i ? "." : "") + parts[i];
  return out;
}

// "blocks.3" -> "blocks.#": modules that differ only by their index.
std::string without_numbers(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += s[i];
    }
  }
  return out;
}

// The module at a dotted path under `model` ("blocks.3"), or null.
const nn::Module* module_at(const nn::Module* model, const std::string& path) {
  for (const std::string& part : split(path, '.')) {
    if (!model) return nullptr;
    const nn::Module* next = nullptr;
    for (const auto& [name, child] : model->named_children())
      if (name == part) next = child.get();
    model = next;
  }
  return model;
}

bool is_parameter(const Tensor& x) { return x.is_leaf() && x.requires_grad() && !x.name().empty(); }

}  // namespace

std::vector<std::size_t> entries_behind(const Tape& t, const Tensor& root, const char* who) {
  if (!root.defined()) throw Error(std::string(who) + ": the tensor is undefined (default-constructed)");
  if (root.is_leaf()) return {};
  if (!made_on(t, root))
    throw AutogradError(std::string(who) + ": the graph of " + root.label() + " (output of '" + root.impl().made_by +
                        "') was released by backward() or tape().clear(). Draw it before backward(), or call "
                        "backward(/*retain_graph=*/true), or use backward_steps(loss), which shows the gradients "
                        "as they arrive");
  const std::size_t last = static_cast<std::size_t>(root.impl().tape_index);
  std::vector<bool> needed(last + 1, false);
  needed[last] = true;
  for (std::size_t i = last + 1; i-- > 0;) {
    if (!needed[i]) continue;
    for (const Tensor& in : t[i].inputs)
      if (made_on(t, in)) needed[static_cast<std::size_t>(in.impl().tape_index)] = true;
  }
  std::vector<std::size_t> entries;
  for (std::size_t i = 0; i <= last; ++i)
    if (needed[i]) entries.push_back(i);
  return entries;
}

std::string values_str(const Array& a, std::size_t max_values) {
  if (a.size() == 0) return "[]";
  if (a.size() <= max_values) {
    std::ostringstream out;
    std::size_t flat = 0;
    nested(out, a, 0, flat);
    return out.str();
  }
  return "min " + number(xt::amin(a)()) + " max " + number(xt::amax(a)()) + " |x| " + number(xt::norm_l2(a)());
}

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

TapeGraph::TapeGraph(const Tape& t, std::vector<std::size_t> entries, const DrawOptions& options, const Tensor* root)
    : tape_(t), options_(options), root_(root) {
  for (std::size_t i : entries) {
    Unit u;
    u.entries = {i};
    u.entry = static_cast<long>(i);
    units_.push_back(u);
  }
  if (options_.depth > 0) group_by_module();
  for (std::size_t u = 0; u < units_.size(); ++u)
    for (std::size_t i : units_[u].entries) unit_of_[i] = u;

  // Which unit made each tensor (none: a leaf, or made outside the drawn entries) and which use it.
  const std::size_t none = units_.size();
  auto producer = [&](const Tensor& x) {
    if (!made_on(t, x)) return none;
    auto it = unit_of_.find(static_cast<std::size_t>(x.impl().tape_index));
    return it == unit_of_.end() ? none : it->second;
  };
  std::map<const TensorImpl*, std::set<std::size_t>> consumers;
  for (std::size_t i : entries)
    for (const Tensor& in : t[i].inputs) consumers[&in.impl()].insert(unit_of_.at(i));
  // A tensor is drawn on its own unless only the box that made it uses it, or it is a parameter
  // that only one box of several entries uses (then the box counts it).
  auto shown = [&](const Tensor& x) {
    const std::size_t made_by = producer(x);
    const auto& users = consumers[&x.impl()];
    if (made_by == none) {
      const bool inside = is_parameter(x) && users.size() == 1 && units_[*users.begin()].entry < 0;
      if (inside) units_[*users.begin()].params += 1;
      return !inside;
    }
    if (units_[made_by].entry >= 0) return true;
    for (std::size_t u : users)
      if (u != made_by) return true;
    return users.empty();  // the root, or an output nobody used
  };
  auto visit = [&](const Tensor& x) {
    if (ids_.count(&x.impl())) return;
    if (!shown(x)) {
      ids_[&x.impl()] = "";
      return;
    }
    ids_[&x.impl()] = "t" + std::to_string(shown_.size());
    shown_.push_back(x);
  };
  for (std::size_t i : entries) {
    for (const Tensor& in : t[i].inputs) visit(in);
    visit(t[i].output);
  }
  if (root && entries.empty()) visit(*root);  // a leaf: the picture is the tensor itself
}

// Entries of one module (by their parameters' names, cut to `depth` parts) become one box;
// an entry without parameters belongs where its latest input was made (the ReLU after a
// block's first linear, the residual add). Then runs of boxes alike but for their indices fold.
void TapeGraph::group_by_module() {
  std::vector<Box> boxes = merge_consecutive(module_scopes());
  split_off_trailing_entries(boxes);
  units_ = fold_repeats(boxes);
}

// Pass 1: each entry's module path ("blocks.3"): the common prefix of its parameters' paths,
// or, for an entry without parameters, the path of the entry that made its latest input.
std::map<std::size_t, std::string> TapeGraph::module_scopes() const {
  std::map<std::size_t, std::string> scope;  // entry -> path
  for (const Unit& u : units_) {
    const TapeEntry& e = tape_[u.entries[0]];
    std::vector<std::string> common;
    bool any = false;
    for (const Tensor& in : e.inputs) {
      if (!is_parameter(in)) continue;
      std::vector<std::string> path = split(in.name(), '.');
      path.pop_back();  // the parameter's own name
      if (path.size() > options_.depth) path.resize(options_.depth);
      if (!any) common = path;
      std::size_t n = 0;
      while (n < common.size() && n < path.size() && common[n] == path[n]) ++n;
      common.resize(n);
      any = true;
    }
    std::string s = join(common, common.size());
    if (!any) {
      long latest = -1;
      for (const Tensor& in : e.inputs)
        if (made_on(tape_, in)) latest = std::max(latest, in.impl().tape_index);
      auto it = latest >= 0 ? scope.find(static_cast<std::size_t>(latest)) : scope.end();
      if (it != scope.end()) s = it->second;
    }
    scope[u.entries[0]] = s;
  }
  return scope;
}

// Pass 2: consecutive entries of one module -> one box.
std::vector<TapeGraph::Box> TapeGraph::merge_consecutive(const std::map<std::size_t, std::string>& scope) const {
  std::vector<Box> boxes;
  for (const Unit& u : units_) {
    const std::string& s = scope.at(u.entries[0]);
    if (!s.empty() && !boxes.empty() && boxes.back().scope == s) {
      boxes.back().unit.entries.push_back(u.entries[0]);
      boxes.back().unit.entry = -1;
      continue;
    }
    boxes.push_back({u, s});
  }
  return boxes;
}

// Pass 3: the entries after the last module that use its output (the loss's sum) were put in
// it: a box that is its predecessor's entries and more is cut back, the rest drawn on their own.
void TapeGraph::split_off_trailing_entries(std::vector<Box>& boxes) const {
  for (std::size_t g = 1; g < boxes.size(); ++g) {
    const Unit& prev = boxes[g - 1].unit;
    Unit& cur = boxes[g].unit;
    if (prev.entry >= 0 || cur.entry >= 0 || cur.entries.size() <= prev.entries.size() ||
        without_numbers(boxes[g].scope) != without_numbers(boxes[g - 1].scope))
      continue;
    bool same_start = true;
    for (std::size_t k = 0; k < prev.entries.size(); ++k)
      same_start = same_start && tape_[prev.entries[k]].op == tape_[cur.entries[k]].op;
    if (!same_start) continue;
    std::vector<Box> tail;
    for (std::size_t k = prev.entries.size(); k < cur.entries.size(); ++k) {
      Unit single;
      single.entries.push_back(cur.entries[k]);
      single.entry = static_cast<long>(cur.entries[k]);
      tail.push_back({single, std::string()});
    }
    cur.entries.resize(prev.entries.size());
    boxes.insert(boxes.begin() + static_cast<long>(g) + 1, tail.begin(), tail.end());
  }
}

// Pass 4: runs of alike boxes (the same module path but for its indices, the same ops) -> one,
// labelled "blocks.0 ... blocks.31 / ResidualBlock ×32".
std::vector<TapeGraph::Unit> TapeGraph::fold_repeats(const std::vector<Box>& boxes) const {
  auto signature = [&](std::size_t g) {
    std::string sig = without_numbers(boxes[g].scope) + "|";
    for (std::size_t i : boxes[g].unit.entries) sig += tape_[i].op + ",";
    return sig;
  };
  std::vector<Unit> units;
  for (std::size_t g = 0; g < boxes.size();) {
    std::size_t end = g + 1;
    if (boxes[g].unit.entry < 0)
      while (end < boxes.size() && boxes[end].unit.entry < 0 && signature(end) == signature(g)) ++end;
    Unit u = boxes[g].unit;
    if (u.entry < 0) {
      for (std::size_t k = g + 1; k < end; ++k)
        u.entries.insert(u.entries.end(), boxes[k].unit.entries.begin(), boxes[k].unit.entries.end());
      u.label = fold_label(boxes[g], boxes[end - 1], end - g);
    }
    units.push_back(u);
    g = end;
  }
  return units;
}

// "blocks.3\nResidualBlock\n6 entries", or for `count` folded boxes from `first` to `last`
// "blocks.0 ... blocks.31\nResidualBlock ×32\n6 entries each".
std::string TapeGraph::fold_label(const Box& first, const Box& last, std::size_t count) const {
  const nn::Module* m = module_at(options_.model, first.scope);
  const std::string type = m ? m->type_name() : std::string();
  const std::string each = std::to_string(first.unit.entries.size());
  if (count == 1) return first.scope + (type.empty() ? "" : "\n" + type) + "\n" + each + " entries";
  return first.scope + " ... " + last.scope + "\n" + (type.empty() ? without_numbers(first.scope) : type) +
         " \xc3\x97" + std::to_string(count) + "\n" + each + " entries each";
}

std::string TapeGraph::tensor_id(const Tensor& x) const {
  auto it = ids_.find(&x.impl());
  return it == ids_.end() ? "" : it->second;
}

std::string TapeGraph::tensor_label(const Tensor& x,
                                    const std::function<std::string(const Tensor&)>* grad_line) const {
  std::vector<std::string> lines;
  if (options_.names && !x.name().empty()) lines.push_back(x.name());
  if (options_.shapes) lines.push_back(shape_str(x.shape()));
  if (options_.values) lines.push_back(values_str(x.value(), options_.max_values));
  if (options_.grads) {
    if (grad_line)
      lines.push_back((*grad_line)(x));
    else if (x.has_grad())
      lines.push_back("grad " + values_str(x.grad(), options_.max_values));
  }
  std::string label;
  for (std::size_t i = 0; i < lines.size(); ++i) label += (i ? "\n" : "") + lines[i];
  return label;
}

std::string TapeGraph::dot(const std::function<std::string(const Tensor&)>* grad_line) const {
  std::ostringstream out;
  out << "digraph tape {\n"
      << "  rankdir=" << (options_.direction == "LR" ? "LR" : "TB") << ";\n"
      << "  node [fontname=\"monospace\", fontsize=10];\n"
      << "  edge [fontname=\"monospace\", fontsize=9];\n";
  for (const Tensor& x : shown_) {
    const std::string id = tensor_id(x);
    std::string style;
    if (root_ && x.same(*root_))
      style = "shape=ellipse, style=filled, fillcolor=gold, peripheries=2";
    else if (made_on(tape_, x))
      style = "shape=ellipse, style=filled, fillcolor=lightyellow";
    else if (x.requires_grad())
      style = "shape=box, style=\"rounded,filled\", fillcolor=lightblue";
    else
      style = "shape=note, style=filled, fillcolor=white";
    out << "  " << id << " [id=\"" << id << "\", class=\"tensor\", " << style
        << ", label=" << dot_quote(tensor_label(x, grad_line)) << "];\n";
  }
  for (std::size_t u = 0; u < units_.size(); ++u) {
    const Unit& unit = units_[u];
    if (unit.entry >= 0) {
      const TapeEntry& e = tape_[static_cast<std::size_t>(unit.entry)];
      const std::string op = "e" + std::to_string(unit.entry);
      const bool fused = is_fused(e.op);
      const bool current = unit.entry == options_.highlight_entry;
      out << "  " << op << " [id=\"" << op << "\", class=\"op " << (fused ? "fused" : "primitive")
          << (current ? " current" : "") << "\", shape=box, style=\"" << (fused ? "filled,bold" : "filled")
          << "\", fillcolor=" << (current ? "orange" : fused ? "thistle" : "lightgrey")
          << (current ? ", penwidth=3" : "") << ", label="
          << dot_quote("#" + std::to_string(unit.entry) + " " + e.op + "\n" + (fused ? "fused" : "primitive"))
          << "];\n";
      for (std::size_t k = 0; k < e.inputs.size(); ++k) {
        out << "  " << tensor_id(e.inputs[k]) << " -> " << op;
        if (e.inputs.size() > 1) out << " [label=\"" << k << "\"]";
        out << ";\n";
      }
      out << "  " << op << " -> " << tensor_id(e.output) << ";\n";
      continue;
    }
    const std::string box = "g" + std::to_string(u);
    bool current = false;
    for (std::size_t i : unit.entries) current = current || static_cast<long>(i) == options_.highlight_entry;
    std::string label = unit.label;
    if (unit.params) label += ", " + std::to_string(unit.params) + " parameters";
    out << "  " << box << " [id=\"" << box << "\", class=\"block" << (current ? " current" : "")
        << "\", shape=box3d, style=filled, fillcolor=" << (current ? "orange" : "\"#dff0d8\"")
        << ", label=" << dot_quote(label) << "];\n";
    std::set<std::string> inputs;
    for (std::size_t i : unit.entries)
      for (const Tensor& in : tape_[i].inputs) {
        const std::string id = tensor_id(in);
        const bool made_here = made_on(tape_, in) && unit_of_.count(static_cast<std::size_t>(in.impl().tape_index)) &&
                               unit_of_.at(static_cast<std::size_t>(in.impl().tape_index)) == u;
        if (!id.empty() && !made_here && inputs.insert(id).second) out << "  " << id << " -> " << box << ";\n";
      }
    for (std::size_t i : unit.entries) {
      const std::string id = tensor_id(tape_[i].output);
      if (!id.empty()) out << "  " << box << " -> " << id << ";\n";
    }
  }
  out << "}\n";
  return out.str();
}

}  // namespace tapegrad::detail

namespace tapegrad {

std::string draw_dot(const Tensor& root, const DrawOptions& options) {
  const Tape& t = tape();
  return detail::TapeGraph(t, detail::entries_behind(t, root, "draw"), options, &root).dot();
}

std::string draw_dot(const Tape& t, const DrawOptions& options) {
  std::vector<std::size_t> all(t.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return detail::TapeGraph(t, all, options, nullptr).dot();
}

Svg draw(const Tensor& root, const DrawOptions& options) { return Svg{render_svg(draw_dot(root, options))}; }
Svg draw(const Tape& t, const DrawOptions& options) { return Svg{render_svg(draw_dot(t, options))}; }

void retain_grads(const Tape& t) {
  for (const TapeEntry& e : t.entries) {
    Tensor output = e.output;  // a handle: the same tensor
    output.retain_grad();
  }
}

}  // namespace tapegrad
