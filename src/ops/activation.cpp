#include "tapegrad/ops/activation.hpp"

#include <cmath>

#include <xtensor/xmath.hpp>

#include "activation_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"

namespace tapegrad {

namespace {

struct ActivationName {
  Activation activation;
  const char* name;
};
// The activations' names, and the values of gelu's `approximate` (torch.nn.functional.gelu's).
const ActivationName activation_names[] = {{Activation::relu, "relu"},
                                           {Activation::gelu, "gelu"},
                                           {Activation::gelu_tanh, "gelu_tanh"},
                                           {Activation::silu, "silu"},
                                           {Activation::swiglu, "swiglu"}};
const ActivationName gelu_approximations[] = {{Activation::gelu, "none"}, {Activation::gelu_tanh, "tanh"}};

// The one parser: the entry of `names` called `name`, else an Error
// "<who>: <what> must be "a", "b" or "c"<note>, got "name"<context>".
template <std::size_t N>
Activation parse_name(const ActivationName (&names)[N], const std::string& name, const std::string& who,
                      const char* what, const char* note = "", const std::string& context = "") {
  std::string choices;
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i].name) return names[i].activation;
    choices += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string("\"") + names[i].name + '"';
  }
  throw Error(who + ": " + what + " must be " + choices + note + ", got \"" + name + '"' + context);
}

// gelu or gelu_tanh, recorded under that name.
Tensor gelu_op(const Tensor& x, Activation activation) {
  return record(activation == Activation::gelu ? "gelu" : "gelu_tanh", {x},
                kernels::gelu_forward(x.value(), kernels::gelu_kind(activation)),
                [activation](const Array& dy, const TapeEntry& e) { gelu_backward(dy, e.inputs[0], activation); });
}

}  // namespace

Activation parse_activation(const char* who, const std::string& name) {
  return parse_name(activation_names, name, who, "activation");
}

std::string to_string(Activation activation) {
  for (const auto& [act, name] : activation_names)
    if (act == activation) return name;
  return "?";
}

Tensor apply_activation(const Tensor& x, Activation activation) {
  if (activation == Activation::swiglu)
    throw Error("apply_activation: activation \"swiglu\" is gated: it needs a gate and an up projection of input " +
                x.label() + "; call swiglu(gate, up) or use nn::FFN(d, hidden, \"swiglu\")");
  if (activation == Activation::silu) return silu(x);
  return activation == Activation::relu ? relu(x) : gelu_op(x, activation);
}

// relu:  y = max(x, 0);  dx = dy ⊙ [not x ≤ 0]  (a NaN passes dy, as in torch; the kernel reads the sign from x)
TAPEGRAD_BACKWARD void relu_backward(const Array& dy, const Tensor& x) {
  const Array& xv = x.value();  // dy has x's shape: it is the gradient of relu(x)
  Array dx = Array::from_shape(xv.shape());
  kernels::relu_backward(xv.data(), dy.data(), dx.data(), xv.size());
  x.accumulate_grad(std::move(dx));
}

Tensor relu(const Tensor& x) {
  Array y = Array::from_shape(x.shape());
  kernels::relu_forward(x.value().data(), y.data(), y.size());
  return record("relu", {x}, std::move(y),
                [](const Array& dy, const TapeEntry& e) { relu_backward(dy, e.inputs[0]); });
}

// gelu:  y = x Φ(x) (or its tanh form);  dx = dy ⊙ gelu'(x)  (both forms in activation_kernel.hpp)
TAPEGRAD_BACKWARD void gelu_backward(const Array& dy, const Tensor& x, Activation form) {
  if (form != Activation::gelu && form != Activation::gelu_tanh)
    throw Error("gelu_backward: form must be Activation::gelu or Activation::gelu_tanh, got Activation::" +
                to_string(form) + " (for input " + x.label() + ")");
  x.accumulate_grad(dy * kernels::gelu_derivative(x.value(), kernels::gelu_kind(form)));
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  return gelu_op(x, parse_name(gelu_approximations, approximate, "gelu", "approximate",
                               " (as in torch.nn.functional.gelu)", " for input " + x.label()));
}

// tanh:  y = tanh x;  dx = dy ⊙ (1 − y²)
TAPEGRAD_BACKWARD void tanh_backward(const Array& dy, const Tensor& x, const Array& y) {
  x.accumulate_grad(dy * (1.0 - y * y));
}

Tensor tanh(const Tensor& x) {
  return record("tanh", {x}, xt::tanh(x.value()),
                [](const Array& dy, const TapeEntry& e) { tanh_backward(dy, e.inputs[0], e.output.value()); });
}

// sigmoid:  y = 1 / (1 + e⁻ˣ);  dx = dy ⊙ y ⊙ (1 − y)
TAPEGRAD_BACKWARD void sigmoid_backward(const Array& dy, const Tensor& x, const Array& y) {
  x.accumulate_grad(dy * y * (1.0 - y));
}

Tensor sigmoid(const Tensor& x) {
  return record("sigmoid", {x}, 1.0 / (1.0 + xt::exp(-x.value())),
                [](const Array& dy, const TapeEntry& e) { sigmoid_backward(dy, e.inputs[0], e.output.value()); });
}

// silu:  y = x σ(x);  dx = dy ⊙ σ(x) (1 + x (1 − σ(x)))  (σ computed stably: activation_kernel.hpp)
TAPEGRAD_BACKWARD void silu_backward(const Array& dy, const Tensor& x) {
  x.accumulate_grad(dy * kernels::silu_derivative(x.value()));
}

Tensor silu(const Tensor& x) {
  return record("silu", {x}, kernels::silu_forward(x.value()),
                [](const Array& dy, const TapeEntry& e) { silu_backward(dy, e.inputs[0]); });
}

// swiglu:  y = silu(g) ⊙ u = g σ(g) ⊙ u;  dg = dy ⊙ u ⊙ σ(g) (1 + g (1 − σ(g))),  du = dy ⊙ g σ(g)
// σ(g) is kept from the forward (the backward needs it twice; one exp per element instead of three). The values
// are those of kernels::silu_forward and silu_derivative, which compute the same σ.
TAPEGRAD_BACKWARD void swiglu_backward(const Array& dy, const Tensor& gate, const Tensor& up, const Array& sigmoid) {
  const double *g = gate.value().data(), *u = up.value().data(), *s = sigmoid.data(), *d = dy.data();
  const std::size_t n = sigmoid.size();
  if (gate.requires_grad()) {
    Array dg = Array::from_shape(gate.shape());
    for (std::size_t i = 0; i < n; ++i) dg.data()[i] = d[i] * u[i] * (s[i] * (1.0 + g[i] * (1.0 - s[i])));
    gate.accumulate_grad(std::move(dg));
  }
  if (up.requires_grad()) {
    Array du = Array::from_shape(up.shape());
    for (std::size_t i = 0; i < n; ++i) du.data()[i] = d[i] * (g[i] * s[i]);
    up.accumulate_grad(std::move(du));
  }
}

Tensor swiglu(const Tensor& gate, const Tensor& up) {
  if (gate.shape() != up.shape())
    throw ShapeError("swiglu: gate " + gate.label() + " and up " + up.label() +
                     " must have the same shape (silu(gate) ⊙ up, no broadcasting)");
  const double *g = gate.value().data(), *u = up.value().data();
  Array sigmoid = Array::from_shape(gate.shape()), y = Array::from_shape(gate.shape());
  for (std::size_t i = 0; i < sigmoid.size(); ++i) {
    sigmoid.data()[i] = kernels::stable_sigmoid(g[i]);
    y.data()[i] = g[i] * sigmoid.data()[i] * u[i];  // silu(g) ⊙ u
  }
  return record("swiglu", {gate, up}, std::move(y),
                [sigmoid = std::move(sigmoid)](const Array& dy, const TapeEntry& e) {
                  swiglu_backward(dy, e.inputs[0], e.inputs[1], sigmoid);
                });
}

}  // namespace tapegrad
