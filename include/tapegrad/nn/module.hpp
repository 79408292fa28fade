#pragma once
// Module: the base of every layer, after torch.nn.Module. A module owns
// parameters (leaves that require grad), buffers (state such as BatchNorm's
// running statistics) and child modules, each under a name. Names compose into
// PyTorch's state_dict keys: "blocks.3.ffn.fc1.weight".

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::nn {

class Module {
 public:
  explicit Module(std::string type_name) : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;  // parameters are shared handles: a copy would alias them
  Module& operator=(const Module&) = delete;

  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }

  // Own parameters first (in registration order), then each child's, depth first.
  std::vector<Tensor> parameters() const;
  NamedTensors named_parameters() const;
  NamedTensors named_buffers() const;
  NamedTensors state_dict() const;  // parameters, then buffers (each with full names)
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const { return children_; }

  void train(bool mode = true);  // this module and every child
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();

  // Fused or composed: modules with a fused op (LayerNorm, RMSNorm, BatchNorm1d, FFN) run
  // it by default, one tape entry with a hand-written backward. use_composed() makes them
  // run the same computation composed from primitive ops (tapegrad::composed), so every
  // step is on the tape and autograd derives the backward. This module and every child.
  void use_composed(bool composed = true);
  bool is_composed() const { return composed_; }

  const std::string& type_name() const { return type_name_; }
  // The module tree, like print(model) in PyTorch.
  std::string to_string() const;

 protected:
  // Registers a parameter: it becomes a leaf that requires grad, named `name`.
  Tensor register_parameter(const std::string& name, Tensor t);
  Tensor register_buffer(const std::string& name, Tensor t);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> child) {
    add_child(name, child);
    return child;
  }
  // One line of settings shown after the type name, e.g. "in_features=16, out_features=64".
  virtual std::string extra_repr() const { return ""; }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> child);
  void collect(const std::string& prefix, bool params, bool buffers, NamedTensors& out) const;
  void prefix_names(const std::string& prefix);
  std::string to_string(int indent) const;

  std::string type_name_;
  bool training_ = true;
  bool composed_ = false;
  NamedTensors params_;
  NamedTensors buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

}  // namespace tapegrad::nn
