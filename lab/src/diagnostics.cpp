#include "tapegrad/lab/diagnostics.hpp"

#include <cmath>
#include <numeric>

#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/tape.hpp"

namespace tapegrad::lab {

double rms_row_norm(const Array& rows) {
  if (rows.dimension() == 0 || rows.shape()[0] == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(xt::sum(rows * rows)() / static_cast<double>(rows.shape()[0]));
}

std::vector<SublayerInitGrad> init_weight_grads(const DepthModel& model, const std::vector<Tensor>& block_outputs,
                                                double grad_scale) {
  std::vector<SublayerInitGrad> rows;
  for (std::size_t l = 0; l < block_outputs.size(); ++l) {
    const double hidden = rms_row_norm(block_outputs[l].value());
    for (const auto& [name, weight] : model.output_projections(l)) {
      const double g = weight->has_grad() ? std::sqrt(xt::sum(weight->grad() * weight->grad())()) / grad_scale : 0.0;
      rows.push_back({l, name, g, hidden});
    }
  }
  return rows;
}

Dataset probe_batch(const Dataset& data, std::size_t rows) {
  std::vector<std::int64_t> first(std::min(rows, data.size()));
  std::iota(first.begin(), first.end(), std::int64_t{0});
  return gather(data, first);
}

Array probe_output(DepthModel& model, const Dataset& probe) {
  const bool was_training = model.is_training();
  model.eval();
  Array out;
  {
    no_grad guard;
    out = model(Tensor(probe.x)).value();
  }
  model.train(was_training);
  return out;
}

OutputChange output_change(const Array& before, const Array& after, double step_lr) {
  OutputChange c;
  c.probe_rows = before.dimension() == 0 ? 0 : before.shape()[0];
  c.step_lr = step_lr;
  c.output_rms = rms_row_norm(before);
  c.output_change = rms_row_norm(after - before);
  return c;
}

}  // namespace tapegrad::lab
