#include "tapegrad/autograd/tensor.hpp"

#include "tapegrad/autograd/precision.hpp"

#include <cstdint>
#include <sstream>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xio.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xshape.hpp>

namespace tapegrad {

std::string shape_str(const Shape& shape) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ')';
  return out.str();
}

std::string index_str(const Shape& shape, std::size_t flat) {
  Shape idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_str(idx);
}

// xtensor computes strides as signed products of the dimensions (without checking), and an
// array's bytes must be addressable: the product of the non-zero dimensions must stay within
// PTRDIFF_MAX / sizeof(double), even when a 0 elsewhere makes the element count 0.
std::size_t checked_numel(const char* op, const Shape& shape) {
  const std::size_t limit = static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(double);
  std::size_t n = 1;
  bool zero = false;
  for (std::size_t d : shape) {
    if (d == 0) zero = true;
    else if (__builtin_mul_overflow(n, d, &n) || n > limit)
      throw ShapeError(std::string(op) + ": shape " + shape_str(shape) +
                       " has more elements than memory can address (the product of its dimensions overflows)");
  }
  return zero ? 0 : n;
}

Tensor::Tensor(Array value, bool requires_grad, std::string name)
    : impl_(std::make_shared<TensorImpl>()) {
  impl_->value = std::move(value);
  impl_->requires_grad = requires_grad;
  impl_->name = std::move(name);
}

TensorImpl& Tensor::checked_impl(const char* what) const {
  if (!impl_) throw Error(std::string("Tensor::") + what + ": the tensor is undefined (default-constructed)");
  return *impl_;
}

const Array& Tensor::value() const { return checked_impl("value").value; }

Array& Tensor::mutable_value() {
  TensorImpl& t = checked_impl("mutable_value");
  ++t.version;
  return t.value;
}

Shape Tensor::shape() const {
  const auto& s = checked_impl("shape").value.shape();
  return Shape(s.begin(), s.end());
}
std::size_t Tensor::dim() const { return checked_impl("dim").value.dimension(); }
std::size_t Tensor::numel() const { return checked_impl("numel").value.size(); }

double Tensor::item() const {
  const Array& v = checked_impl("item").value;
  if (v.size() != 1)
    throw ShapeError("item: tensor " + label() + " has " + std::to_string(v.size()) +
                     " elements; item() needs exactly one");
  return v.data()[0];
}

bool Tensor::requires_grad() const { return checked_impl("requires_grad").requires_grad; }

Tensor& Tensor::requires_grad_(bool requires) {
  TensorImpl& t = checked_impl("requires_grad_");
  if (t.tape_index >= 0)
    throw AutogradError("requires_grad_: " + label() + " is the output of '" + t.made_by +
                        "', not a leaf; only leaf tensors can change requires_grad (use detach())");
  t.requires_grad = requires;
  return *this;
}

bool Tensor::is_leaf() const { return checked_impl("is_leaf").tape_index < 0 && impl_->made_by.empty(); }

bool Tensor::has_grad() const { return checked_impl("has_grad").has_grad; }

const Array& Tensor::grad() const {
  const TensorImpl& t = checked_impl("grad");
  if (t.has_grad) return t.grad;
  if (!t.requires_grad)
    throw AutogradError("grad: " + label() + " does not require grad, so it never gets one " +
                        "(make it with requires_grad=true or call requires_grad_())");
  if (!t.made_by.empty() && t.graph_released)
    throw AutogradError("grad: " + label() + " is the output of '" + t.made_by +
                        "', a non-leaf whose graph was released by backward(); its gradient " +
                        "was freed with it. Call retain_grad() on it before backward() to keep it");
  if (!t.made_by.empty())
    throw AutogradError("grad: " + label() + " is the output of '" + t.made_by +
                        "' and has no gradient; non-leaf tensors keep one only after retain_grad() " +
                        "and backward()");
  throw AutogradError("grad: " + label() + " has no gradient yet: call backward() on a result that depends on it " +
                      "(or check has_grad())");
}

Array& Tensor::mutable_grad() {
  grad();  // the same checks and messages
  return impl_->grad;
}

void Tensor::zero_grad() {
  TensorImpl& t = checked_impl("zero_grad");
  t.grad = Array();
  t.has_grad = false;
}

void Tensor::retain_grad() {
  TensorImpl& t = checked_impl("retain_grad");
  if (!t.requires_grad)
    throw AutogradError("retain_grad: " + label() + " does not require grad");
  t.retains_grad = true;
}

Tensor Tensor::detach() const {
  const TensorImpl& t = checked_impl("detach");
  return Tensor(t.value, false, t.name);
}

const std::string& Tensor::name() const { return checked_impl("name").name; }

Tensor& Tensor::set_name(std::string name) {
  checked_impl("set_name").name = std::move(name);
  return *this;
}

std::string Tensor::label() const {
  if (!impl_) return "<undefined>";
  std::string s = shape_str(impl_->value.shape());
  return impl_->name.empty() ? s : "'" + impl_->name + "' " + s;
}

std::string Tensor::to_string() const {
  if (!impl_) return "Tensor(<undefined>)";
  std::ostringstream out;
  out << "Tensor(";
  if (!impl_->name.empty()) out << "name='" << impl_->name << "', ";
  out << "shape=" << shape_str(impl_->value.shape());
  if (!impl_->made_by.empty()) out << ", made_by=" << impl_->made_by;
  if (impl_->requires_grad) out << ", requires_grad=true";
  out << ",\n  value=" << impl_->value;
  if (impl_->has_grad) out << ",\n  grad=" << impl_->grad;
  out << ")";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << t.to_string(); }

void Tensor::accumulate_grad(const Array& g) const {
  TensorImpl& t = checked_impl("accumulate_grad");
  if (!t.requires_grad) return;
  // Inside a precision_scope, the stored gradient is rounded to its format (precision.cpp).
  if (low_precision_active()) return accumulate_grad_in_current_precision(*this, g);
  // Usually g already has the tensor's shape: then it is added as it is, not
  // through sum_to_shape (which returns a copy).
  if (xt::same_shape(g.shape(), t.value.shape())) {
    if (t.has_grad) t.grad += g;
    else t.grad = g;
  } else {
    const Shape target(t.value.shape().begin(), t.value.shape().end());
    if (t.has_grad) t.grad += sum_to_shape(g, target);
    else t.grad = sum_to_shape(g, target);
  }
  t.has_grad = true;
}

void Tensor::accumulate_grad(Array&& g) const {
  TensorImpl& t = checked_impl("accumulate_grad");
  const bool first_of_same_shape = t.requires_grad && !t.has_grad && xt::same_shape(g.shape(), t.value.shape());
  if (!first_of_same_shape || low_precision_active()) return accumulate_grad(static_cast<const Array&>(g));
  t.grad = std::move(g);
  t.has_grad = true;
}

Array sum_to_shape(const Array& g, const Shape& shape) {
  if (xt::same_shape(g.shape(), shape)) return g;
  const std::size_t gdim = g.dimension();
  if (shape.size() > gdim)
    throw ShapeError("sum_to_shape: gradient of shape " + shape_str(g.shape()) +
                     " has fewer dimensions than the target " + shape_str(shape));
  const std::size_t lead = gdim - shape.size();
  std::vector<std::size_t> axes;
  for (std::size_t i = 0; i < lead; ++i) axes.push_back(i);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::size_t gi = g.shape()[lead + i];
    if (shape[i] == gi) continue;
    if (shape[i] != 1)
      throw ShapeError("sum_to_shape: gradient of shape " + shape_str(g.shape()) +
                       " cannot be reduced to " + shape_str(shape));
    axes.push_back(lead + i);
  }
  // An empty g (an empty batch) sums to zeros: xtensor 0.24's immediate reducer
  // would read through a null pointer on it.
  if (g.size() == 0) return Array(xt::zeros<double>(shape));
  Array reduced = xt::sum(g, axes, xt::evaluation_strategy::immediate);
  reduced.reshape(shape);
  return reduced;
}

Tensor tensor(Array value, bool requires_grad, std::string name) {
  return Tensor(std::move(value), requires_grad, std::move(name));
}
Tensor zeros(const Shape& shape, bool requires_grad) {
  checked_numel("zeros", shape);
  return Tensor(Array(xt::zeros<double>(shape)), requires_grad);
}
Tensor ones(const Shape& shape, bool requires_grad) {
  checked_numel("ones", shape);
  return Tensor(Array(xt::ones<double>(shape)), requires_grad);
}
Tensor full(const Shape& shape, double fill, bool requires_grad) {
  checked_numel("full", shape);
  Array value = Array::from_shape(shape);
  value.fill(fill);
  return Tensor(std::move(value), requires_grad);
}

}  // namespace tapegrad
