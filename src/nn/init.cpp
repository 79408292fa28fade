#include "tapegrad/nn/init.hpp"

#include <cmath>

#include "../argument_check.hpp"

namespace tapegrad::init {
namespace {

// Fans of a weight, or a ShapeError naming the scheme that needed them.
Fans fans_of(const Shape& shape, const std::string& op) {
  if (shape.size() < 2)
    throw ShapeError(op + ": fan in and fan out can not be computed for a tensor of shape " + shape_str(shape) +
                     " with fewer than 2 dimensions (expected a weight (out, in, ...))");
  std::size_t receptive = 1;  // k1·k2·… of a conv kernel; 1 for a Linear weight
  for (std::size_t i = 2; i < shape.size(); ++i) receptive *= shape[i];
  return {shape[1] * receptive, shape[0] * receptive};
}

// torch.nn.init._calculate_correct_fan: the fan that `mode` asks for.
double fan_for_mode(const Tensor& t, const std::string& mode, const std::string& op) {
  if (mode != "fan_in" && mode != "fan_out")
    throw Error(op + ": mode \"" + mode + "\" is not supported; use \"fan_in\" or \"fan_out\"");
  const Fans f = fans_of(t.shape(), op + " of " + t.label());
  return static_cast<double>(mode == "fan_in" ? f.fan_in : f.fan_out);
}

}  // namespace

Fans calculate_fan_in_and_fan_out(const Shape& shape) { return fans_of(shape, "calculate_fan_in_and_fan_out"); }

double calculate_gain(const std::string& nonlinearity, double param) {
  static const char* const unit_gain[] = {"linear",           "identity",         "conv1d",
                                          "conv2d",           "conv3d",           "conv_transpose1d",
                                          "conv_transpose2d", "conv_transpose3d", "sigmoid"};
  for (const char* name : unit_gain)
    if (nonlinearity == name) return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4.0;  // keeps the fan-in normalisation of SNNs
  throw Error("calculate_gain: unsupported nonlinearity \"" + nonlinearity +
              "\" (expected linear, identity, conv*, sigmoid, tanh, relu, leaky_relu or selu)");
}

// ---- plain fills: values in row-major order, one generator call each ----

Tensor uniform_(Tensor t, double a, double b, Generator& gen) {
  detail::require(a <= b, "uniform_ of " + t.label(), "b", b, "b >= a = " + detail::num(a));
  for (double& v : t.mutable_value()) v = gen.uniform(a, b);
  return t;
}

Tensor normal_(Tensor t, double mean, double std, Generator& gen) {
  detail::require(std >= 0.0, "normal_ of " + t.label(), "std", std, "std >= 0");
  for (double& v : t.mutable_value()) v = gen.normal(mean, std);
  return t;
}

Tensor constant_(Tensor t, double value) {
  t.mutable_value().fill(value);
  return t;
}
Tensor zeros_(Tensor t) { return constant_(t, 0.0); }
Tensor ones_(Tensor t) { return constant_(t, 1.0); }

// ---- Glorot & Bengio (2010): keep the variance equal forward and backward ----
//   Var(w) = gain² · 2 / (fan_in + fan_out);  U(−a, a) has variance a²/3, so a = √3·std.

Tensor xavier_uniform_(Tensor t, double gain, Generator& gen) {
  if (t.numel() == 0) return t;  // PyTorch: initialising a zero-element tensor is a no-op
  const Fans f = fans_of(t.shape(), "xavier_uniform_ of " + t.label());
  const double std = gain * std::sqrt(2.0 / static_cast<double>(f.fan_in + f.fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(t, -a, a, gen);
}

Tensor xavier_normal_(Tensor t, double gain, Generator& gen) {
  if (t.numel() == 0) return t;
  const Fans f = fans_of(t.shape(), "xavier_normal_ of " + t.label());
  const double std = gain * std::sqrt(2.0 / static_cast<double>(f.fan_in + f.fan_out));
  return normal_(t, 0.0, std, gen);
}

// ---- He et al. (2015): keep the variance through (leaky) ReLUs ----
//   Var(w) = gain² / fan;  uniform bound = √3·std.

Tensor kaiming_uniform_(Tensor t, double a, const std::string& mode, const std::string& nonlinearity,
                        Generator& gen) {
  const double gain = calculate_gain(nonlinearity, a);
  if (t.numel() == 0) return t;
  const double std = gain / std::sqrt(fan_for_mode(t, mode, "kaiming_uniform_"));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(t, -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, const std::string& mode, const std::string& nonlinearity,
                       Generator& gen) {
  const double gain = calculate_gain(nonlinearity, a);
  if (t.numel() == 0) return t;
  const double std = gain / std::sqrt(fan_for_mode(t, mode, "kaiming_normal_"));
  return normal_(t, 0.0, std, gen);
}

// With a = √5: gain = √(2 / (1 + 5)) = 1/√3, bound = √3 · (1/√3) / √fan_in = 1/√fan_in.
void linear_default_(Tensor weight, Tensor bias, Generator& gen) {
  const Fans f = fans_of(weight.shape(), "linear_default_ of " + weight.label());
  // Check the bias before drawing anything, so that an error changes nothing.
  if (bias.defined() && bias.shape() != Shape{weight.shape()[0]})
    throw ShapeError("linear_default_: bias " + bias.label() + " does not fit weight " + weight.label() +
                     "; expected a bias of shape " + shape_str(Shape{weight.shape()[0]}));
  kaiming_uniform_(weight, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
  if (!bias.defined()) return;
  const double bound = f.fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(f.fan_in)) : 0.0;
  uniform_(bias, -bound, bound, gen);
}

}  // namespace tapegrad::init
