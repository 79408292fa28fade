#include "tapegrad/nn/module.hpp"

#include <sstream>

namespace tapegrad::nn {

Tensor Module::register_parameter(const std::string& name, Tensor t) {
  if (!t.is_leaf()) throw Error(type_name_ + ": parameter '" + name + "' must be a leaf tensor");
  t.requires_grad_(true);
  t.set_name(name);
  params_.emplace_back(name, t);
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  t.set_name(name);
  buffers_.emplace_back(name, t);
  return t;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  if (!child) throw Error(type_name_ + ": child module '" + name + "' is null");
  child->prefix_names(name + ".");
  children_.emplace_back(name, std::move(child));
}

// Tensor names carry the path from the outermost module that registered them,
// so tape listings and errors say "blocks.3.ffn.fc1.weight", not just "weight".
void Module::prefix_names(const std::string& prefix) {
  for (auto& [name, t] : params_) t.set_name(prefix + t.name());
  for (auto& [name, t] : buffers_) t.set_name(prefix + t.name());
  for (auto& [name, child] : children_) child->prefix_names(prefix);
}

void Module::collect(const std::string& prefix, bool params, bool buffers, NamedTensors& out) const {
  if (params)
    for (const auto& [name, t] : params_) out.emplace_back(prefix + name, t);
  if (buffers)
    for (const auto& [name, t] : buffers_) out.emplace_back(prefix + name, t);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", params, buffers, out);
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  collect("", true, false, out);
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  collect("", false, true, out);
  return out;
}

NamedTensors Module::state_dict() const {
  NamedTensors out = named_parameters();
  for (auto& b : named_buffers()) out.push_back(std::move(b));
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

void Module::train(bool mode) {
  training_ = mode;
  for (auto& [name, child] : children_) child->train(mode);
}

void Module::use_composed(bool composed) {
  composed_ = composed;
  for (auto& [name, child] : children_) child->use_composed(composed);
}

void Module::zero_grad() {
  for (Tensor& t : parameters()) t.zero_grad();
}

std::string Module::to_string() const { return to_string(0); }

std::string Module::to_string(int indent) const {
  std::ostringstream out;
  out << type_name_ << '(' << extra_repr();
  if (!children_.empty()) {
    out << '\n';
    for (const auto& [name, child] : children_)
      out << std::string(static_cast<std::size_t>(indent + 2), ' ') << '(' << name << "): " << child->to_string(indent + 2)
          << '\n';
    out << std::string(static_cast<std::size_t>(indent), ' ');
  }
  out << ')';
  return out.str();
}

}  // namespace tapegrad::nn
