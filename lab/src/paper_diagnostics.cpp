#include "tapegrad/lab/paper_diagnostics.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include <xtensor/xmath.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/results_store.hpp"
#include "tapegrad/nn/transformer_block.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/loss.hpp"

namespace tapegrad::lab {

const std::string kExpectedGradsHeader =
    config_header() + ",block,sublayer,expected_grad_norm,mean_batch_grad_norm,first_batch_grad_norm\n";
const std::string kHiddenNormsHeader =
    config_header() + ",layer,output_sq_norm,residual_sq_norm,lemma2_lower,lemma2_upper,compared\n";
const std::string kUpdateSizesHeader = config_header() + ",step,step_lr,output_change\n";

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double frobenius(const Array& a) { return std::sqrt(xt::sum(a * a)()); }

// E‖x‖² per position: the mean over the rows of x viewed as (positions, d).
double mean_sq_norm(const Array& x) {
  const double d = static_cast<double>(x.shape().back());
  return xt::sum(x * x)() / (static_cast<double>(x.size()) / d);
}

// The block's last residual sum, the input of its last norm (x^{post,5} of Xiong et al. for Post-Norm):
// x + F(x) (DeepNorm: αx + F(x)) for the placements that normalise after the sum; the output otherwise.
Array last_residual_sum(const DepthModel& model, std::size_t l, const Tensor& input, const Tensor& output,
                        nn::Placement placement, std::size_t depth) {
  if (placement != nn::Placement::post && placement != nn::Placement::deepnorm) return output.value();
  const double alpha = placement == nn::Placement::deepnorm ? nn::deepnorm_constants(depth).alpha : 1.0;
  Tensor x = input;
  nn::Module* sublayer = nullptr;
  if (model.transformer) {
    auto& block = model.blocks->at<nn::TransformerBlock>(l);
    x = (*block.attn)(input);  // the attention sublayer's residual block: LN(x + Attn(x))
    sublayer = block.feed_forward.get();
  } else {
    sublayer = model.blocks->at<nn::ResidualBlock>(l).sublayer.get();
  }
  return alpha * x.value() + (*sublayer)(x).value();
}

}  // namespace

std::pair<double, double> lemma2_bounds(nn::Placement p, std::size_t layer, std::size_t d) {
  const double l = static_cast<double>(layer), dd = static_cast<double>(d);
  if (p == nn::Placement::post) return {1.5 * dd, 1.5 * dd};
  if (p == nn::Placement::pre) return {(1 + l / 2) * dd, (1 + 1.5 * l) * dd};
  return {kNaN, kNaN};
}

PaperDiagnostics paper_diagnostics(const RunConfig& c, std::size_t K, long tracked) {
  validate(c);
  if (K == 0) throw Error("paper_diagnostics: the number of minibatches K must be at least 1");
  if (c.precision != RunPrecision::fp64)  // its K gradients at init are float64 sums, with no format or loss scale
    throw Error("paper_diagnostics: the papers' diagnostics are measured in fp64 only, got --precision " +
                to_string(c.precision) + " (a sweep with --precisions compares the formats' training)");
  const TaskData task = make_task(c);
  Generator init_gen(init_seed(c));
  DepthModel model(c, init_gen);
  RunConfig first_k = c;  // the run's first K minibatches (the same stream as its training batches)
  first_k.steps = static_cast<long>(K);
  const Batches batches = sample_batches(first_k);

  // At initialisation: K forwards and backwards, no update. Each forward in training mode, as the run's first
  // step is; a BatchNorm's running statistics move, but this model is not trained afterwards.
  PaperDiagnostics out;
  std::vector<Array> sum_grad;
  std::vector<double> sum_norm, first_norm;
  std::vector<double> sum_output(c.depth, 0.0), sum_residual(c.depth, 0.0);
  for (std::size_t k = 0; k < K; ++k) {
    model.zero_grad();
    const Dataset batch = gather(task.train, batches[k]);
    std::vector<Tensor> outputs;
    Tensor loss = cross_entropy(model.forward(Tensor(batch.x), &outputs), batch.y);
    loss.backward();
    std::size_t i = 0;
    for (std::size_t l = 0; l < c.depth; ++l) {
      for (const auto& [name, weight] : model.output_projections(l)) {
        const Array g = weight->has_grad() ? Array(weight->grad()) : Array(xt::zeros_like(weight->value()));
        if (k == 0) {
          sum_grad.push_back(g);
          sum_norm.push_back(frobenius(g));
          first_norm.push_back(frobenius(g));
          out.gradients.push_back({l, name, 0, 0, 0});
        } else {
          sum_grad[i] += g;
          sum_norm[i] += frobenius(g);
        }
        ++i;
      }
    }
    no_grad guard;
    Tensor input = model.embed(Tensor(batch.x));
    for (std::size_t l = 0; l < c.depth; ++l) {
      sum_output[l] += mean_sq_norm(outputs[l].value());
      sum_residual[l] += mean_sq_norm(last_residual_sum(model, l, input, outputs[l], c.placement, c.depth));
      input = outputs[l];
    }
  }
  const double n = static_cast<double>(K);
  for (std::size_t i = 0; i < out.gradients.size(); ++i) {
    out.gradients[i].expected_norm = frobenius(sum_grad[i] / n);
    out.gradients[i].mean_batch_norm = sum_norm[i] / n;
    out.gradients[i].first_batch_norm = first_norm[i];
  }
  for (std::size_t l = 0; l < c.depth; ++l) {
    const auto [lower, upper] = lemma2_bounds(c.placement, l + 1, c.d);
    const double output = sum_output[l] / n, residual = sum_residual[l] / n;
    out.hidden.push_back({l + 1, output, residual, lower, upper,
                          c.placement == nn::Placement::post ? residual : output});
  }

  // Training as the run does (a fresh model from the same init), ‖ΔF‖ after each of the first updates.
  RunConfig short_run = c;
  short_run.steps = std::min(c.steps, tracked);
  Generator train_gen(init_seed(c));
  DepthModel trained(c, train_gen);
  const Dataset probe = probe_batch(task.eval, c.batch);
  Array before = probe_output(trained, probe);
  const TrainLog log = train(trained, task.train, &task.eval, sample_batches(short_run), short_run, nullptr,
                             [&](long step, double lr) {
                               const Array after = probe_output(trained, probe);
                               out.updates.push_back({step + 1, lr, rms_row_norm(after - before)});
                               before = after;
                             });
  out.first_step = log.first_step;
  return out;
}

std::string expected_grad_rows(const RunConfig& c, const PaperDiagnostics& p) {
  std::ostringstream s;
  for (const auto& g : p.gradients)
    s << config_columns(c) << ',' << g.block << ',' << g.sublayer << ',' << format_double(g.expected_norm) << ','
      << format_double(g.mean_batch_norm) << ',' << format_double(g.first_batch_norm) << '\n';
  return s.str();
}

std::string hidden_norm_rows(const RunConfig& c, const PaperDiagnostics& p) {
  std::ostringstream s;
  for (const auto& h : p.hidden)
    s << config_columns(c) << ',' << h.layer << ',' << format_double(h.output_sq_norm) << ','
      << format_double(h.residual_sq_norm) << ',' << format_double(h.lower) << ',' << format_double(h.upper) << ','
      << format_double(h.compared) << '\n';
  return s.str();
}

std::string update_size_rows(const RunConfig& c, const PaperDiagnostics& p) {
  std::ostringstream s;
  for (const auto& u : p.updates)
    s << config_columns(c) << ',' << u.step << ',' << format_double(u.step_lr) << ','
      << format_double(u.output_change) << '\n';
  return s.str();
}

}  // namespace tapegrad::lab
