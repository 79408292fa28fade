// feed_forward: the FFN's two linears and activation as one op, forward and backward side by side.
#include "tapegrad/ops/feed_forward.hpp"

#include "activation_kernel.hpp"
#include "linear_kernel.hpp"
#include "optional_tensor.hpp"
#include "product_grad.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/linear.hpp"

namespace tapegrad {

using blas::as_matrix;
using kernels::LinearShape;

// What feed_forward saves for its backward: the two linears' shapes, the activation,
// its output a and (GELU only) its input h.
struct FeedForwardSaved {
  LinearShape up;    // h = x W1ᵀ + b1:  x (rows, in) -> h (rows, hidden)
  LinearShape down;  // y = a W2ᵀ + b2:  a (rows, hidden) -> y (rows, out)
  Activation activation;
  Array h;  // empty for ReLU, whose derivative [h > 0] = [a > 0] needs only a
  Array a;
};

TAPEGRAD_BACKWARD void feed_forward_backward(const Array& dy, const Tensor& x, const Tensor& w1, const Tensor& b1,
                                             const Tensor& w2, const Tensor& b2, const FeedForwardSaved& saved);

namespace {

// The two linears' shapes, or a ShapeError saying which tensor does not fit; an Error for "swiglu",
// whose third weight this op has no place for. `op` names the caller.
FeedForwardSaved check_shapes(const char* op, const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                              const Tensor& b2, Activation activation) {
  if (activation == Activation::swiglu)
    throw Error(std::string(op) + ": activation \"swiglu\" is gated and needs three weights (gate, up, down), but " +
                "this op takes two (w1 " + w1.label() + ", w2 " + w2.label() + "); use nn::FFN(d, hidden, \"swiglu\")");
  FeedForwardSaved saved;
  saved.up = kernels::check_linear("feed_forward", [&] { return "input " + x.label(); }, x.shape(), "w1", w1, "b1", b1);
  Shape hidden_shape = x.shape();
  hidden_shape.back() = saved.up.out;
  saved.down = kernels::check_linear("feed_forward", [&] { return "the hidden layer x w1ᵀ " + shape_str(hidden_shape); },
                                     hidden_shape, "w2", w2, "b2", b2);
  return saved;
}

// a = act(h), kept for the backward. ReLU is applied in place, so a overwrites h and
// only a is kept; GELU's and SiLU's derivatives need h, so both are kept.
void activate_and_keep(Array h, FeedForwardSaved& saved) {
  if (saved.activation == Activation::relu) {
    kernels::relu_forward(h.data(), h.data(), h.size());
    saved.a = std::move(h);
  } else {
    saved.a = saved.activation == Activation::silu ? kernels::silu_forward(h)
                                                   : kernels::gelu_forward(h, kernels::gelu_kind(saved.activation));
    saved.h = std::move(h);
  }
}

// da ⊙ act'(h), in da's buffer.
void multiply_by_activation_derivative(Array& da, const FeedForwardSaved& saved) {
  if (saved.activation == Activation::relu) kernels::relu_backward(saved.a.data(), da.data(), da.data(), da.size());
  else if (saved.activation == Activation::silu) da *= kernels::silu_derivative(saved.h);
  else da *= kernels::gelu_derivative(saved.h, kernels::gelu_kind(saved.activation));
}

// Where the inputs went on the tape entry (b1 and b2 may be absent).
struct FeedForwardSlots {
  int x, w1, b1, w2, b2;
};

// Records the op: inputs x, w1, b1, w2, b2 (those given); the lambda unpacks the entry
// and calls the named backward.
Tensor record_feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                           Array y, FeedForwardSaved saved) {
  OpInputs inputs;
  const FeedForwardSlots at{inputs.add(x), inputs.add(w1), inputs.add(b1), inputs.add(w2), inputs.add(b2)};
  return record("feed_forward", std::move(inputs.tensors), std::move(y),
                [at, saved = std::move(saved)](const Array& dy, const TapeEntry& e) {
                  feed_forward_backward(dy, e.inputs[at.x], e.inputs[at.w1], optional_input(e, at.b1),
                                        e.inputs[at.w2], optional_input(e, at.b2), saved);
                });
}

}  // namespace

// ---- y = a W2ᵀ + b2,  a = act(h),  h = x W1ᵀ + b1 ----
// x's leading axes are flattened into rows: x (rows, in), h and a (rows, hidden), y (rows, out).
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation) {
  FeedForwardSaved saved = check_shapes("feed_forward", x, w1, b1, w2, b2, activation);
  // Inside a precision_scope the hidden layer is stored in the scope's format, as on hardware:
  // the composed FFN rounds h and act(h) too (one fused op would round only y). Its entries are
  // linear, the activation and linear, so feed_forward_backward does not run there: in gdb,
  // `break linear.cpp:tapegrad::linear_backward` (tools/gdb/README.md, recipe ffn_precision).
  if (low_precision_active()) return composed::feed_forward(x, w1, b1, w2, b2, activation);
  saved.activation = activation;

  Array h = Array::from_shape({saved.up.rows, saved.up.out});  // (rows, hidden)
  kernels::linear_forward(x.value().data(), saved.up, w1.value(), data_or_null(b1), h.data());
  activate_and_keep(std::move(h), saved);
  Shape y_shape = x.shape();  // (..., out)
  y_shape.back() = saved.down.out;
  Array y = Array::from_shape(y_shape);
  kernels::linear_forward(saved.a.data(), saved.down, w2.value(), data_or_null(b2), y.data());
  return record_feed_forward(x, w1, b1, w2, b2, std::move(y), std::move(saved));
}

// backward: db2 = Σ_rows dy;  dW2 = dyᵀ a;  da = dy W2
//           dh = da ⊙ act'(h);  db1 = Σ_rows dh;  dW1 = dhᵀ x;  dx = dh W1
// (dh is made in da's buffer)
TAPEGRAD_BACKWARD void feed_forward_backward(const Array& dy, const Tensor& x, const Tensor& w1, const Tensor& b1,
                                             const Tensor& w2, const Tensor& b2, const FeedForwardSaved& saved) {
  const std::size_t rows = saved.up.rows, in = saved.up.in, hidden = saved.up.out, out = saved.down.out;
  const blas::Matrix dy2 = as_matrix(dy, rows, out);
  if (wants_grad(b2)) b2.accumulate_grad(kernels::bias_grad(dy.data(), rows, out));
  add_product_to_grad(w2, transposed(dy2), as_is(as_matrix(saved.a, rows, hidden)));  // (rows, out)ᵀ @ (rows, hidden)
  if (!x.requires_grad() && !w1.requires_grad() && !wants_grad(b1)) return;  // nothing below a wants a gradient

  Array dh = Array::from_shape({rows, hidden});
  write_product(dh.data(), as_is(dy2), as_is(as_matrix(w2.value(), out, hidden)));  // da: (rows, out) @ (out, hidden)
  multiply_by_activation_derivative(dh, saved);                                    // dh = da ⊙ act'(h)
  const blas::Matrix dh2 = as_matrix(dh, rows, hidden);
  if (wants_grad(b1)) b1.accumulate_grad(kernels::bias_grad(dh.data(), rows, hidden));
  add_product_to_grad(w1, transposed(dh2), as_is(as_matrix(x.value(), rows, in)));  // (rows, hidden)ᵀ @ (rows, in)
  add_product_to_grad(x, as_is(dh2), as_is(as_matrix(w1.value(), hidden, in)));    // (rows, hidden) @ (hidden, in)
}

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  return tapegrad::feed_forward(x, w1, b1, w2, b2, parse_activation("feed_forward", activation));
}

namespace composed {

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    Activation activation) {
  return linear(apply_activation(linear(x, w1, b1), activation), w2, b2);
}

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  return composed::feed_forward(x, w1, b1, w2, b2, parse_activation("composed::feed_forward", activation));
}

}  // namespace composed

}  // namespace tapegrad
