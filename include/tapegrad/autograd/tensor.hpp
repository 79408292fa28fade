#pragma once
// Tensor: a handle (shared, like torch.Tensor) to a value, its gradient and
// the bookkeeping the tape needs. Copies of a Tensor refer to the same data.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "tapegrad/autograd/error.hpp"

namespace tapegrad {

using Array = xt::xarray<double>;

// What a Tensor refers to: its value and the engine's bookkeeping. Plain fields, so that
// `p *t.impl_` in gdb tells all. The engine's (src/autograd/): only Tensor's methods, record()
// and the backward walk write them; everyone else reads them through Tensor's methods or impl().
struct TensorImpl {
  Array value;
  Array grad;                   // meaningful only when has_grad
  bool has_grad = false;
  bool requires_grad = false;
  bool retains_grad = false;    // a non-leaf whose grad survives backward()
  std::string name;             // optional, shown in errors and tape listings
  // Where the tensor was made: -1 for a leaf (made by the user), else the
  // index of the tape entry whose output it is, on tape generation `tape_generation`.
  long tape_index = -1;
  std::uint64_t tape_generation = 0;
  std::string made_by;          // op name of that entry ("" for a leaf)
  bool graph_released = false;  // its tape entry was released by backward()/clear()
  std::uint64_t version = 0;    // bumped by every in-place change of `value`
};

class Tensor {
 public:
  // An undefined tensor (like a default torch.Tensor() handle); most calls throw.
  Tensor() = default;
  explicit Tensor(Array value, bool requires_grad = false, std::string name = "");

  // ---- value ----
  const Array& value() const;
  // For in-place updates (optimizers, gradcheck). Bumps the version counter so
  // that a backward() through an op that saved the old value is refused.
  Array& mutable_value();
  Shape shape() const;
  std::size_t dim() const;
  std::size_t numel() const;
  double item() const;  // the single value of a one-element tensor

  // ---- autograd ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires = true);  // leaves only, as in PyTorch
  bool is_leaf() const;
  bool has_grad() const;
  const Array& grad() const;     // throws a clear error if there is none
  Array& mutable_grad();         // e.g. for gradient clipping
  void zero_grad();              // drops the gradient (PyTorch's set_to_none)
  void retain_grad();            // keep a non-leaf's grad after backward()
  Tensor detach() const;         // same value (copied), no history, no grad

  // Backpropagate from this tensor through the tape. A scalar needs no
  // gradient; otherwise pass d(something)/d(this) with this tensor's shape.
  // The tape is released afterwards unless retain_graph is true.
  void backward(bool retain_graph = false) const;
  void backward(const Array& grad_output, bool retain_graph = false) const;

  // ---- naming and display ----
  const std::string& name() const;
  Tensor& set_name(std::string name);
  std::string label() const;     // "'w' (2, 3)" or "(2, 3)", for messages
  std::string to_string() const;

  bool defined() const { return static_cast<bool>(impl_); }
  // The bookkeeping, read-only (the tape views, anomaly messages and tests read it); throws if undefined.
  const TensorImpl& impl() const { return checked_impl("impl"); }
  bool same(const Tensor& other) const { return impl_ == other.impl_; }

  // Adds g to the gradient, summing broadcast axes away so that the result has
  // this tensor's shape. Called by ops' backward functions; ignores tensors
  // that do not require grad. Given a g the caller is done with (an rvalue), the
  // first gradient of the tensor's own shape takes g's buffer instead of a copy.
  void accumulate_grad(const Array& g) const;
  void accumulate_grad(Array&& g) const;


 private:
  TensorImpl& checked_impl(const char* what) const;

  // The engine's (see TensorImpl): private, so that ops, modules and user code change a tensor
  // only through the methods above. The engine writes it through EngineAccess
  // (src/autograd/engine_access.hpp). gdb and lldb read it all the same: `p *x.impl_`.
  friend struct EngineAccess;
  std::shared_ptr<TensorImpl> impl_;
};

// Tensors under names, in order: what Module::named_parameters() and state_dict() return,
// ("blocks.0.ffn.fc1.weight", tensor), ..., and what checkpoints save.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// `std::cout << t` prints t.to_string() (name, shape, value, grad), as print(t) in PyTorch.
std::ostream& operator<<(std::ostream& out, const Tensor& t);

// The number of elements of `shape` (1 for a 0-d shape), or a ShapeError naming `op` and the
// shape if the product of its non-zero dimensions overflows what memory can address (xtensor
// would wrap it around: (2^32, 2^32) would become 0 elements, with undefined strides).
std::size_t checked_numel(const char* op, const Shape& shape);

// Convenience constructors in PyTorch's spirit. Each refuses a shape whose element count
// overflows (checked_numel).
Tensor tensor(Array value, bool requires_grad = false, std::string name = "");
Tensor zeros(const Shape& shape, bool requires_grad = false);
Tensor ones(const Shape& shape, bool requires_grad = false);
Tensor full(const Shape& shape, double fill, bool requires_grad = false);

// Sums g over the axes that broadcasting added or stretched, so that it has
// `shape` (the reverse of NumPy broadcasting).
Array sum_to_shape(const Array& g, const Shape& shape);

}  // namespace tapegrad
