#include "tapegrad/optim/sgd.hpp"

#include <cmath>

#include "tapegrad/autograd/precision.hpp"

#include "../argument_check.hpp"

namespace tapegrad::optim {
namespace {

double required_lr(double lr) {
  if (std::isnan(lr))
    throw Error("SGD: the learning rate lr was not set (torch.optim.SGD has no default; e.g. SGDOptions{0.1})");
  return lr;
}

}  // namespace

SGD::SGD(std::vector<Tensor> params, const SGDOptions& options)
    : Optimizer("SGD", std::move(params), required_lr(options.lr)), options_(options) {
  require(options.momentum >= 0.0, "momentum", options.momentum, "momentum >= 0");
  require(options.dampening >= 0.0, "dampening", options.dampening, "dampening >= 0");  // (PyTorch does not check)
  require(options.weight_decay >= 0.0, "weight_decay", options.weight_decay, "weight_decay >= 0");
  if (options.nesterov && (options.momentum <= 0.0 || options.dampening != 0.0))
    throw Error("SGD: nesterov=true requires momentum > 0 and dampening = 0, got momentum=" +
                detail::num(options.momentum) + ", dampening=" + detail::num(options.dampening));
  state_.resize(this->params().size());
}

// The operations are those of torch's _single_tensor_sgd, in the same order,
// so the results agree with PyTorch to the last bit or nearly so.
void SGD::update(std::size_t i, Array& p, const Array& g) {
  const SGDOptions& o = options_;
  Array d = o.weight_decay != 0.0 ? Array(g + o.weight_decay * p) : g;   // d_p.add(param, alpha=λ)
  if (o.momentum != 0.0) {
    std::optional<Array>& buf = state_[i].momentum_buffer;
    if (!buf) {
      buf = d;                                                         // torch.clone(d_p)
    } else {
      check_state_shape(i, "momentum buffer", *buf, p);
      *buf = o.momentum * *buf + (1.0 - o.dampening) * d;               // buf.mul_(μ).add_(d_p, alpha=1−τ)
    }
    round_to_current_precision(*buf);  // inside a precision_scope: the buffer in its format
    if (o.nesterov) d = d + o.momentum * *buf;                          // d_p.add(buf, alpha=μ)
    else d = *buf;
  }
  p += -lr() * d;                                                       // param.add_(d_p, alpha=−lr)
}

}  // namespace tapegrad::optim
