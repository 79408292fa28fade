#pragma once
// The graph of (part of) a tape, as draw(), draw_dot() and backward_steps() draw it: which entries,
// which tensors, which boxes (an entry, or a module's entries, or a run of identical modules
// folded), and its Graphviz source. Internal to src/debug.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tapegrad/debug/draw.hpp"

namespace tapegrad::detail {

// The entries `root` depends on, in tape order; throws if its graph was released.
std::vector<std::size_t> entries_behind(const Tape& t, const Tensor& root, const char* who);

class TapeGraph {
 public:
  TapeGraph(const Tape& t, std::vector<std::size_t> entries, const DrawOptions& options, const Tensor* root);

  // The Graphviz source. `grad_line`, if given, replaces each tensor node's gradient line
  // (backward_steps lays the graph out with its own).
  std::string dot(const std::function<std::string(const Tensor&)>* grad_line = nullptr) const;

  // The node id ("t3") of a tensor shown on its own, or "" if it is hidden inside a box.
  std::string tensor_id(const Tensor& x) const;
  const std::vector<Tensor>& shown_tensors() const { return shown_; }

 private:
  struct Unit {                      // one box: an entry, a module's entries, or a fold of modules
    std::vector<std::size_t> entries;
    std::string label;               // for boxes of several entries
    long entry = -1;                 // the entry, for a box of one
    std::size_t params = 0;          // parameters drawn inside it
  };
  struct Box {                       // a unit and the module path its entries belong to
    Unit unit;
    std::string scope;               // "blocks.3", "" for none
  };
  // group_by_module's four passes, in order (draw_graph.cpp says what each does).
  void group_by_module();
  std::map<std::size_t, std::string> module_scopes() const;
  std::vector<Box> merge_consecutive(const std::map<std::size_t, std::string>& scope) const;
  void split_off_trailing_entries(std::vector<Box>& boxes) const;
  std::vector<Unit> fold_repeats(const std::vector<Box>& boxes) const;
  std::string fold_label(const Box& first, const Box& last, std::size_t count) const;
  std::string tensor_label(const Tensor& x, const std::function<std::string(const Tensor&)>* grad_line) const;

  const Tape& tape_;
  DrawOptions options_;
  const Tensor* root_;
  std::vector<Unit> units_;
  std::map<std::size_t, std::size_t> unit_of_;            // entry -> units_ index
  std::map<const TensorImpl*, std::string> ids_;           // shown tensors
  std::vector<Tensor> shown_;
};

// "[1, 2.5]", "[[1, 2], [3, 4]]", or "min -1 max 3 |x| 4.2" for more than `max_values` elements.
std::string values_str(const Array& a, std::size_t max_values);
// A string as a dot label: quotes and backslashes escaped, newlines as \n.
std::string dot_quote(const std::string& s);

}  // namespace tapegrad::detail
