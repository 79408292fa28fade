#pragma once
// Nonlinearities, PyTorch names and defaults.

#include <string>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

Tensor relu(const Tensor& x);
// approximate = "none" (exact, with erf) or "tanh", as torch.nn.functional.gelu.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
// silu(x) = x·sigmoid(x), as torch.nn.functional.silu (also called swish); stable for any |x|.
Tensor silu(const Tensor& x);
// swiglu(gate, up) = silu(gate) ⊙ up, elementwise (same shapes, no broadcasting): the gated
// hidden layer of the SwiGLU FFN (Shazeer 2020; LLaMA's MLP), act_fn(gate_proj(x)) * up_proj(x).
Tensor swiglu(const Tensor& gate, const Tensor& up);

// ---- an activation by name: the FFN's (feed_forward, nn::FFN) ----
// "relu", "gelu" (exact, erf), "gelu_tanh" (the tanh approximation), "silu" (x·sigmoid(x)) and
// "swiglu": the gated FFN silu(x W1ᵀ) ⊙ (x W3ᵀ) of nn::FFN, which needs a third weight, so it is a
// choice of the module only: apply_activation and feed_forward refuse it with an Error.
enum class Activation { relu, gelu, gelu_tanh, silu, swiglu };

// The one parser of activation names (gelu's `approximate` is read by it too): throws
// Error("<who>: activation must be \"relu\", \"gelu\", \"gelu_tanh\", \"silu\" or \"swiglu\", got ...")
// for an unknown one.
Activation parse_activation(const char* who, const std::string& name);
std::string to_string(Activation activation);  // its name: "relu", "gelu", "gelu_tanh", "silu", "swiglu"
// relu(x), gelu(x), gelu(x, "tanh") or silu(x), recorded on the tape as that op (swiglu: an Error).
Tensor apply_activation(const Tensor& x, Activation activation);

// ---- backward rules (the math is above each one in activation.cpp) ----
// Each adds dL/dx to x's gradient, given dy = dL/dy (y is the op's output).
// (relu_backward's loop is kernels::relu_backward, shared with the fused FFN.)
void relu_backward(const Array& dy, const Tensor& x);
// form: Activation::gelu (approximate="none") or Activation::gelu_tanh (approximate="tanh").
void gelu_backward(const Array& dy, const Tensor& x, Activation form);
void tanh_backward(const Array& dy, const Tensor& x, const Array& y);
void sigmoid_backward(const Array& dy, const Tensor& x, const Array& y);
void silu_backward(const Array& dy, const Tensor& x);
void swiglu_backward(const Array& dy, const Tensor& gate, const Tensor& up, const Array& sigmoid);  // σ(gate), kept

}  // namespace tapegrad
