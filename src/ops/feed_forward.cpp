// feed_forward: the FFN's two linears and activation, forward and backward side by side.
#include "tapegrad/ops/feed_forward.hpp"

#include "activation_kernel.hpp"
#include "linear_kernel.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/linear.hpp"

namespace tapegrad {

using blas::as_matrix;

namespace {

enum class Activation { relu, gelu, gelu_tanh };

Activation parse_activation(const char* op, const std::string& name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  if (name == "gelu_tanh") return Activation::gelu_tanh;
  throw Error(std::string(op) + ": activation must be \"relu\", \"gelu\" or \"gelu_tanh\", got \"" + name + "\"");
}

kernels::Gelu gelu_kind(Activation act) { return act == Activation::gelu ? kernels::Gelu::exact : kernels::Gelu::tanh; }

}  // namespace

void check_feed_forward_activation(const char* who, const std::string& activation) { parse_activation(who, activation); }

// ---- y = a W2ᵀ + b2,  a = act(h),  h = x W1ᵀ + b1 ----
// backward: db2 = Σ_rows dy;  dW2 = dyᵀ a;  da = dy W2
//           dh = da ⊙ act'(h);  db1 = Σ_rows dh;  dW1 = dhᵀ x;  dx = dh W1
// ReLU's act'(h) = [h > 0] = [a > 0], so a overwrites h and only a is kept; GELU's
// derivative needs h, so both are kept. dh is made in da's buffer.
Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  const Activation act = parse_activation("feed_forward", activation);
  const kernels::LinearShape s1 =
      kernels::check_linear("feed_forward", [&] { return "input " + x.label(); }, x.shape(), "w1", w1, "b1", b1);
  Shape hidden_shape = x.shape();
  hidden_shape.back() = s1.out;
  const kernels::LinearShape s2 =
      kernels::check_linear("feed_forward", [&] { return "the hidden layer x w1ᵀ " + shape_str(hidden_shape); },
                            hidden_shape, "w2", w2, "b2", b2);
  const bool has_b1 = b1.defined(), has_b2 = b2.defined();

  Array h = Array::from_shape({s1.rows, s1.out});  // (rows, hidden): x's leading axes flattened
  kernels::linear_forward(x.value().data(), s1, w1.value(), has_b1 ? b1.value().data() : nullptr, h.data());
  Array a;
  if (act == Activation::relu) {
    kernels::relu_forward(h.data(), h.data(), h.size());
    a = std::move(h);
    h = Array();
  } else {
    a = kernels::gelu_forward(h, gelu_kind(act));
  }
  Shape y_shape = x.shape();
  y_shape.back() = s2.out;
  Array y = Array::from_shape(y_shape);
  kernels::linear_forward(a.data(), s2, w2.value(), has_b2 ? b2.value().data() : nullptr, y.data());

  // Tape inputs: x, w1, [b1], w2, [b2].
  std::vector<Tensor> inputs{x, w1};
  if (has_b1) inputs.push_back(b1);
  inputs.push_back(w2);
  if (has_b2) inputs.push_back(b2);
  return record("feed_forward", std::move(inputs), std::move(y),
                [s1, s2, act, has_b1, has_b2, h = std::move(h), a = std::move(a)](const Array& dy, const TapeEntry& e) {
                  const Tensor& x = e.inputs[0];
                  const Tensor& w1 = e.inputs[1];
                  const Tensor* b1 = has_b1 ? &e.inputs[2] : nullptr;
                  const Tensor& w2 = e.inputs[has_b1 ? 3 : 2];
                  const Tensor* b2 = has_b2 ? &e.inputs[has_b1 ? 4 : 3] : nullptr;

                  const blas::Matrix dy2 = as_matrix(dy, s2.rows, s2.out);
                  if (b2 && b2->requires_grad()) b2->accumulate_grad(kernels::bias_grad(dy.data(), s2.rows, s2.out));
                  if (w2.requires_grad()) blas::accumulate_product(w2, dy2, true, as_matrix(a, s2.rows, s2.in), false);
                  const bool want_db1 = b1 && b1->requires_grad();
                  if (!x.requires_grad() && !w1.requires_grad() && !want_db1) return;

                  Array dh = Array::from_shape({s1.rows, s1.out});
                  blas::gemm(dy2, false, as_matrix(w2.value(), s2.out, s2.in), false, dh.data(), 0.0);  // da
                  if (act == Activation::relu) kernels::relu_backward(a.data(), dh.data(), dh.data(), dh.size());
                  else dh *= kernels::gelu_derivative(h, gelu_kind(act));
                  const blas::Matrix dh2 = as_matrix(dh, s1.rows, s1.out);
                  if (want_db1) b1->accumulate_grad(kernels::bias_grad(dh.data(), s1.rows, s1.out));
                  if (w1.requires_grad())
                    blas::accumulate_product(w1, dh2, true, as_matrix(x.value(), s1.rows, s1.in), false);
                  if (x.requires_grad())
                    blas::accumulate_product(x, dh2, false, as_matrix(w1.value(), s1.out, s1.in), false);
                });
}

namespace composed {

Tensor feed_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2,
                    const std::string& activation) {
  const Activation act = parse_activation("composed::feed_forward", activation);
  Tensor h = linear(x, w1, b1);
  if (act == Activation::relu) h = relu(h);
  else h = gelu(h, act == Activation::gelu ? "none" : "tanh");
  return linear(h, w2, b2);
}

}  // namespace composed

}  // namespace tapegrad
