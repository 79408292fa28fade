#pragma once
// Optimizer: what SGD, Adam and AdamW share (torch.optim.Optimizer, with a
// single parameter group: one learning rate for all parameters, which a
// schedule may change between steps with set_lr()).
//
// A training step, as in PyTorch:
//   optimizer.zero_grad();      // drop last step's gradients
//   loss.backward();            // fill p.grad() for every parameter
//   optimizer.step();           // p ← update(p, p.grad()), in place
//
// step() visits the parameters in the order given, skips those without a
// gradient (PyTorch's `if p.grad is None: continue`), and hands each one to
// the subclass's update(), which changes p.mutable_value() in place. That
// bumps p's version counter, which is fine: backward() has already run.

#include <string>
#include <utility>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad::optim {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // One update of every parameter that has a gradient.
  void step();
  // Drop every parameter's gradient (PyTorch's zero_grad(set_to_none=True)):
  // the next backward() then starts from nothing instead of adding to old grads.
  void zero_grad();

  // The learning rate of the next step(). set_lr() is how schedules act.
  double lr() const { return lr_; }
  void set_lr(double lr);

  const std::vector<Tensor>& params() const { return params_; }
  const std::string& name() const { return name_; }
  // How many times step() has run.
  long steps_taken() const { return steps_taken_; }

 protected:
  // Checks the parameters (non-empty, defined, leaves, no duplicates) and lr.
  Optimizer(std::string name, std::vector<Tensor> params, double lr);

  // Update parameter i (value p, gradient g of the same shape) in place.
  virtual void update(std::size_t i, Array& p, const Array& g) = 0;

  // Throws Error("<name>: invalid <what>=<value> (expected <expected>)") unless ok.
  void require(bool ok, const std::string& what, double value, const std::string& expected) const;
  // Throws a ShapeError if parameter i's value p and its saved state (e.g. a
  // momentum buffer) differ in shape: xtensor would broadcast them silently.
  void check_state_shape(std::size_t i, const std::string& what, const Array& state, const Array& p) const;

 private:
  std::string name_;
  std::vector<Tensor> params_;
  double lr_;
  long steps_taken_ = 0;
};

}  // namespace tapegrad::optim
