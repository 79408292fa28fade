// feed_forward: the FFN's two linears and activation, forward and backward side by side.
#include "tapegrad/ops/feed_forward.hpp"

#include "activation_kernel.hpp"
#include "linear_kernel.hpp"
#include "product_grad.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/linear.hpp"

namespace tapegrad {

using blas::as_matrix;
using kernels::LinearShape;

namespace {
const std::pair<Activation, const char*> activation_names[] = {
    {Activation::relu, "relu"}, {Activation::gelu, "gelu"}, {Activation::gelu_tanh, "gelu_tanh"}};

kernels::Gelu gelu_kind(Activation act) { return act == Activation::gelu ? kernels::Gelu::exact : kernels::Gelu::tanh; }
}  // namespace

Activation parse_activation(const char* who, const std::string& name) {
  for (const auto& [act, n] : activation_names)
    if (name == n) return act;
  throw Error(std::string(who) + ": activation must be \"relu\", \"gelu\" or \"gelu_tanh\", got \"" + name + "\"");
}

std::string to_string(Activation activation) {
  for (const auto& [act, n] : activation_names)
    if (act == activation) return n;
  return "?";
}

// What feed_forward saves for its backward: the two linears' shapes, the activation,
// its output a and (GELU only) its input h.
struct FeedForwardSaved {
  LinearShape up, down;  // x → h (rows, hidden),  a → y (rows, out)
  Activation activation;
  Array h;  // empty for ReLU, whose derivative [h > 0] = [a > 0] needs only a
  Array a;
};

TAPEGRAD_BACKWARD void feed_forward_backward(const Array& dy, const Tensor& x, const Tensor& w1, const Tensor* b1,
                                             const Tensor& w2, const Tensor* b2, const FeedForwardSaved& saved);

// ---- y = a W2ᵀ + b2,  a = act(h),  h = x W1ᵀ + b1 ----
// ReLU is applied in place on h, so a overwrites h and only a is kept; GELU's
// derivative needs h, so both are kept.
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation) {
  FeedForwardSaved saved;
  saved.activation = activation;
  saved.up = kernels::check_linear("feed_forward", [&] { return "input " + x.label(); }, x.shape(), "w1", w1, "b1", b1);
  Shape hidden_shape = x.shape();
  hidden_shape.back() = saved.up.out;
  saved.down = kernels::check_linear("feed_forward",
                                     [&] { return "the hidden layer x w1ᵀ " + shape_str(hidden_shape); },
                                     hidden_shape, "w2", w2, "b2", b2);
  // Inside a precision_scope the hidden layer is stored in the scope's format, as on hardware:
  // the composed FFN rounds h and act(h) too (one fused op would round only y).
  if (low_precision_active()) return composed::feed_forward(x, w1, b1, w2, b2, activation);
  const LinearShape& s1 = saved.up;
  const LinearShape& s2 = saved.down;

  Array h = Array::from_shape({s1.rows, s1.out});  // (rows, hidden): x's leading axes flattened
  kernels::linear_forward(x.value().data(), s1, w1.value(), b1.defined() ? b1.value().data() : nullptr, h.data());
  if (activation == Activation::relu) {
    kernels::relu_forward(h.data(), h.data(), h.size());
    saved.a = std::move(h);
  } else {
    saved.a = kernels::gelu_forward(h, gelu_kind(activation));
    saved.h = std::move(h);
  }
  Shape y_shape = x.shape();
  y_shape.back() = s2.out;
  Array y = Array::from_shape(y_shape);
  kernels::linear_forward(saved.a.data(), s2, w2.value(), b2.defined() ? b2.value().data() : nullptr, y.data());

  OpInputs inputs;
  inputs.add(x);
  inputs.add(w1);
  const int b1_slot = inputs.add(b1);
  const int w2_slot = inputs.add(w2);
  const int b2_slot = inputs.add(b2);
  return record("feed_forward", std::move(inputs.tensors), std::move(y),
                [b1_slot, w2_slot, b2_slot, saved = std::move(saved)](const Array& dy, const TapeEntry& e) {
                  feed_forward_backward(dy, e.inputs[0], e.inputs[1], input_at(e, b1_slot), *input_at(e, w2_slot),
                                        input_at(e, b2_slot), saved);
                });
}

// backward: db2 = Σ_rows dy;  dW2 = dyᵀ a;  da = dy W2
//           dh = da ⊙ act'(h);  db1 = Σ_rows dh;  dW1 = dhᵀ x;  dx = dh W1
// (dh is made in da's buffer)
TAPEGRAD_BACKWARD void feed_forward_backward(const Array& dy, const Tensor& x, const Tensor& w1, const Tensor* b1,
                                             const Tensor& w2, const Tensor* b2, const FeedForwardSaved& saved) {
  const LinearShape& s1 = saved.up;
  const LinearShape& s2 = saved.down;
  const blas::Matrix dy2 = as_matrix(dy, s2.rows, s2.out);
  if (b2 && b2->requires_grad()) b2->accumulate_grad(kernels::bias_grad(dy.data(), s2.rows, s2.out));
  add_product_to_grad(w2, dy2, true, as_matrix(saved.a, s2.rows, s2.in), false);
  const bool want_db1 = b1 && b1->requires_grad();
  if (!x.requires_grad() && !w1.requires_grad() && !want_db1) return;

  Array dh = Array::from_shape({s1.rows, s1.out});
  blas::gemm(dy2, false, as_matrix(w2.value(), s2.out, s2.in), false, dh.data(), 0.0);  // da
  if (saved.activation == Activation::relu) kernels::relu_backward(saved.a.data(), dh.data(), dh.data(), dh.size());
  else dh *= kernels::gelu_derivative(saved.h, gelu_kind(saved.activation));
  const blas::Matrix dh2 = as_matrix(dh, s1.rows, s1.out);
  if (want_db1) b1->accumulate_grad(kernels::bias_grad(dh.data(), s1.rows, s1.out));
  add_product_to_grad(w1, dh2, true, as_matrix(x.value(), s1.rows, s1.in), false);
  add_product_to_grad(x, dh2, false, as_matrix(w1.value(), s1.out, s1.in), false);
}

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  return tapegrad::feed_forward(x, w1, b1, w2, b2, parse_activation("feed_forward", activation));
}

namespace composed {

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation) {
  Tensor h = linear(x, w1, b1);
  if (activation == Activation::relu) h = relu(h);
  else h = gelu(h, activation == Activation::gelu ? "none" : "tanh");
  return linear(h, w2, b2);
}

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  return composed::feed_forward(x, w1, b1, w2, b2, parse_activation("composed::feed_forward", activation));
}

}  // namespace composed

}  // namespace tapegrad
