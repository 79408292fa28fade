#include "tapegrad/optim/optimizer.hpp"

#include <cmath>

#include "tapegrad/autograd/precision.hpp"

#include "../argument_check.hpp"

namespace tapegrad::optim {

Optimizer::Optimizer(std::string name, std::vector<Tensor> params, double lr)
    : name_(std::move(name)), params_(std::move(params)), lr_(0.0) {
  if (params_.empty()) throw Error(name_ + ": got an empty parameter list (nothing to optimize)");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    const std::string which = name_ + ": parameter " + std::to_string(i);
    if (!p.defined()) throw Error(which + " is an undefined Tensor()");
    // A non-leaf's value is recomputed by the forward pass; updating it would be lost.
    if (!p.is_leaf())
      throw Error(which + " " + p.label() + " is not a leaf (it is the output of '" + p.impl().made_by +
                  "'); only leaf tensors can be optimized");
    // Two entries for one tensor would update it twice per step.
    for (std::size_t j = 0; j < i; ++j)
      if (params_[j].same(p))
        throw Error(which + " " + p.label() + " is the same tensor as parameter " + std::to_string(j) +
                    "; each parameter may appear once");
  }
  set_lr(lr);
}

void Optimizer::require(bool ok, const std::string& what, double value, const std::string& expected) const {
  detail::require(ok, name_, what, value, expected);
}

void Optimizer::check_state_shape(std::size_t i, const std::string& what, const Array& state, const Array& p) const {
  if (state.shape() != p.shape())
    throw ShapeError(name_ + ": parameter " + std::to_string(i) + " " + params_[i].label() + " no longer has the shape " +
                     shape_str(state.shape()) + " of its " + what + "; was it replaced after the optimizer was made?");
}

void Optimizer::set_lr(double lr) {
  require(lr >= 0.0 && std::isfinite(lr), "learning rate lr", lr, "a finite lr >= 0");
  lr_ = lr;
}

void Optimizer::step() {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    if (!p.has_grad()) continue;  // not used by this loss, or does not require grad
    const Array& g = p.grad();
    if (g.shape() != p.value().shape())
      throw ShapeError(name_ + ": parameter " + std::to_string(i) + " " + p.label() + " has a gradient of shape " +
                       shape_str(g.shape()) + "; expected the parameter's shape");
    Array& value = p.mutable_value();
    update(i, value, g);
    round_to_current_precision(value);  // inside a precision_scope: the parameter in its format
  }
  ++steps_taken_;
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
}

}  // namespace tapegrad::optim
