#pragma once
// Parameter initialisation, after torch.nn.init: every function fills a
// tensor's value in place (hence the trailing underscore) from a Generator
// and returns the tensor. Tensors are handles, so they are taken by value:
// init::zeros_(layer.bias) changes the layer's bias. No tape entry is made: like PyTorch's init under
// torch.no_grad(), this is a change of a leaf's data, not an op.
//
// Fans follow torch.nn.init._calculate_fan_in_and_fan_out, for a weight of
// shape (out, in, k1, k2, ...):
//   receptive = k1·k2·…  (1 for a Linear weight (out, in))
//   fan_in    = in  · receptive
//   fan_out   = out · receptive
//
//   scheme             distribution        scale
//   xavier_uniform_    U(−a, a)            a = gain·√(6 / (fan_in + fan_out))
//   xavier_normal_     N(0, std²)          std = gain·√(2 / (fan_in + fan_out))
//   kaiming_uniform_   U(−b, b)            b = gain·√(3 / fan)
//   kaiming_normal_    N(0, std²)          std = gain / √fan
// where fan is fan_in or fan_out (mode) and gain = calculate_gain(nonlinearity, a).

#include <string>
#include <utility>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/autograd/random.hpp"

namespace tapegrad::init {

struct Fans {
  std::size_t fan_in = 0;
  std::size_t fan_out = 0;
};

// Needs at least 2 dimensions (throws ShapeError otherwise, like PyTorch).
Fans calculate_fan_in_and_fan_out(const Shape& shape);

// The recommended gain for a nonlinearity (torch.nn.init.calculate_gain):
//   "linear", "identity", "conv1d/2d/3d", "conv_transpose1d/2d/3d", "sigmoid" → 1
//   "tanh" → 5/3,  "relu" → √2,  "selu" → 3/4,
//   "leaky_relu" → √(2 / (1 + slope²)) with slope = param (0.01 when not
//   given, PyTorch's default negative slope).
double calculate_gain(const std::string& nonlinearity, double param = 0.01);

// ---- plain fills ----
Tensor uniform_(Tensor t, double a = 0.0, double b = 1.0, Generator& gen = default_generator());
Tensor normal_(Tensor t, double mean = 0.0, double std = 1.0, Generator& gen = default_generator());
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);

// ---- scaled by the fans ----
Tensor xavier_uniform_(Tensor t, double gain = 1.0, Generator& gen = default_generator());
Tensor xavier_normal_(Tensor t, double gain = 1.0, Generator& gen = default_generator());
// a: the negative slope of the leaky_relu that follows (only used for it).
// mode: "fan_in" (keeps the forward variance) or "fan_out" (keeps the backward one).
Tensor kaiming_uniform_(Tensor t, double a = 0.0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu", Generator& gen = default_generator());
Tensor kaiming_normal_(Tensor t, double a = 0.0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu", Generator& gen = default_generator());

// nn.Linear's default (Linear.reset_parameters): the weight (out, in) gets
// kaiming_uniform_(a = √5), which works out to U(−1/√in, 1/√in), and then the
// bias (out) gets U(−1/√in, 1/√in) too. Pass an undefined Tensor() for no bias.
// The weight is drawn first, then the bias, as in PyTorch.
void linear_default_(Tensor weight, Tensor bias, Generator& gen = default_generator());

}  // namespace tapegrad::init
