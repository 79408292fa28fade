#include "tapegrad/nn/dropout_layer.hpp"

#include "tapegrad/ops/dropout.hpp"
#include "../argument_check.hpp"

namespace tapegrad::nn {

Dropout::Dropout(double p_, Generator& gen) : Module("Dropout"), p(p_), gen_(&gen) {
  detail::require(p >= 0.0 && p <= 1.0, "Dropout", "p", p, "a drop probability in [0, 1]");
}

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, is_training(), *gen_); }

std::string Dropout::extra_repr() const { return "p=" + detail::num(p); }

}  // namespace tapegrad::nn
