#include "tapegrad/nn/residual_block.hpp"

#include <cmath>
#include <sstream>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/nn/dropout_layer.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/residual.hpp"

namespace tapegrad::nn {

namespace {
const std::vector<std::pair<Placement, std::string>>& placement_names() {
  static const std::vector<std::pair<Placement, std::string>> names{
      {Placement::post, "post"},         {Placement::pre, "pre"},         {Placement::deepnorm, "deepnorm"},
      {Placement::rezero, "rezero"},     {Placement::sandwich, "sandwich"}, {Placement::none, "none"}};
  return names;
}
}  // namespace

Placement parse_placement(const std::string& name) {
  std::string valid;
  for (const auto& [p, n] : placement_names()) {
    if (n == name) return p;
    valid += (valid.empty() ? "" : ", ") + n;
  }
  throw Error("unknown placement \"" + name + "\"; expected one of: " + valid);
}

std::string to_string(Placement placement) {
  for (const auto& [p, n] : placement_names())
    if (p == placement) return n;
  return "?";
}

const std::vector<Placement>& all_placements() {
  static const std::vector<Placement> all = [] {
    std::vector<Placement> v;
    for (const auto& [p, n] : placement_names()) v.push_back(p);
    return v;
  }();
  return all;
}

bool needs_final_norm(Placement placement) { return placement == Placement::pre || placement == Placement::sandwich; }

DeepNormConstants deepnorm_constants(std::size_t num_blocks) {
  const double n = static_cast<double>(num_blocks);
  return {std::pow(2.0 * n, 0.25), std::pow(8.0 * n, -0.25)};
}

ResidualBlock::ResidualBlock(std::shared_ptr<Module> sublayer_, Placement placement_, std::size_t d,
                             const ResidualBlockOptions& options_)
    : Module("ResidualBlock"), placement(placement_), options(options_) {
  if (!sublayer_) throw Error("ResidualBlock: the sublayer is null");
  sublayer = register_module(options.sublayer_name, sublayer_);
  switch (placement) {
    case Placement::post:
    case Placement::pre:
    case Placement::deepnorm:
      norm = register_module("norm", make_norm(options.norm, d, options.eps));
      break;
    case Placement::sandwich:
      norm = register_module("norm", make_norm(options.norm, d, options.eps));
      norm_out = register_module("norm_out", make_norm(options.norm, d, options.eps));
      break;
    case Placement::rezero:
      alpha = register_parameter("alpha", zeros({1}));  // the block starts as the identity
      break;
    case Placement::none:
      break;
  }
  if (options.dropout != 0.0) {  // (NaN too, so that Dropout refuses it)
    Generator& gen = options.dropout_generator ? *options.dropout_generator : default_generator();
    dropout = register_module("dropout", std::make_shared<Dropout>(options.dropout, gen));  // checks p's range
  }
  if (placement == Placement::deepnorm) {
    // DeepNet's β: shrink the sublayer's weights at init so early updates stay bounded.
    for (auto& [name, p] : sublayer->named_parameters())
      if (name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0) p.mutable_value() *= options.deepnorm_beta;
  }
}

Tensor ResidualBlock::forward(const Tensor& x) {
  Module& sub = *sublayer;
  return forward(x, [&sub](const Tensor& t) { return sub(t); });
}

Tensor ResidualBlock::forward(const Tensor& x, const std::function<Tensor(const Tensor&)>& sublayer_call) {
  // F: the sublayer, then its residual dropout (if any), so that each placement below reads as its formula.
  Module* drop = dropout.get();
  const auto F = [&](const Tensor& t) { return drop ? (*drop)(sublayer_call(t)) : sublayer_call(t); };
  switch (placement) {
    case Placement::post: return (*norm)(residual(x, F(x)));                                  // LN(x + F(x))
    case Placement::pre: return residual(x, F((*norm)(x)));                                   // x + F(LN(x))
    case Placement::deepnorm: return (*norm)(residual(x * options.deepnorm_alpha, F(x)));     // LN(αx + F(x))
    case Placement::rezero: return residual(x, F(x) * alpha);                                 // x + α·F(x)
    case Placement::sandwich: return residual(x, (*norm_out)(F((*norm)(x))));                 // x + LN(F(LN(x)))
    case Placement::none: return residual(x, F(x));                                           // x + F(x)
  }
  throw Error("ResidualBlock: unknown placement");
}

std::string ResidualBlock::extra_repr() const {
  std::ostringstream out;
  out << "placement=" << nn::to_string(placement);
  if (placement == Placement::deepnorm) out << ", alpha=" << options.deepnorm_alpha << ", beta=" << options.deepnorm_beta;
  if (options.dropout > 0.0) out << ", dropout=" << options.dropout;
  return out.str();
}

}  // namespace tapegrad::nn
