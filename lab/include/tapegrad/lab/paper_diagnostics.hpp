#pragma once
// The papers' own definitions, measured for one run (tapegrad-depth --diagnose; docs/lab.md compares them with
// the papers). The sweep's diagnostics (diagnostics.hpp) stay as they were: these are separate, so that the
// default sweep's output does not change.
//
//   expected gradient  Xiong et al. 2020, Fig. 3: ‖E_k[∂L_k/∂W]‖ (Frobenius) over K minibatches at
//                      initialisation (the run's first K batches), per block and sublayer output projection;
//                      beside it the mean of the K per-batch norms and the first batch's (the sweep's figure).
//   hidden-state norm  Xiong's Lemma 2, at initialisation, over the same K batches, per block l = 1..L:
//                      E‖x_l‖² per position (an example, or a token of the Transformer), x_l the block's output,
//                      and the block's last residual sum (the input of its last norm: x^{post,5} for Post-Norm).
//                      Bounds: Post-Norm's residual sum 3d/2; Pre-Norm's output between (1 + l/2)d and (1 + 3l/2)d.
//   ‖ΔF‖               DeepNet 2022, Fig. 4: after each of the first `tracked` updates t of training, the output
//                      change on the probe batch, rms_row_norm(f(x; θ_t) − f(x; θ_{t−1})) (diagnostics.hpp).
//   output change      the first update's (OutputChange), to fit against depth (Liu et al. 2020, Fig. 4).

#include <string>
#include <vector>

#include "tapegrad/lab/diagnostics.hpp"
#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

struct ExpectedGradient {  // a row of expected_grads.csv
  std::size_t block;
  std::string sublayer;       // "ffn.fc2.weight", "attn.self_attn.out_proj.weight"
  double expected_norm;       // ‖mean over the K batches of ∂L/∂W‖
  double mean_batch_norm;     // mean over the K batches of ‖∂L/∂W‖
  double first_batch_norm;    // ‖∂L/∂W‖ on the first batch (init_grads.csv's weight_grad_norm)
};

struct HiddenNorm {  // a row of hidden_norms.csv
  std::size_t layer;          // l = block index + 1
  double output_sq_norm;      // E‖x_l‖², x_l the output of block l
  double residual_sq_norm;    // E‖·‖² of the block's last residual sum (the input of its last norm)
  double lower, upper;        // Lemma 2's bounds on the quantity it is about (NaN for other placements)
  double compared;            // that quantity: residual_sq_norm for post, output_sq_norm for pre
};

struct UpdateSize {  // a row of update_sizes.csv
  long step;                  // t: after the t-th update
  double step_lr;
  double output_change;       // ‖ΔF‖ = rms_row_norm(f(θ_t) − f(θ_{t−1})) on the probe batch
};

struct PaperDiagnostics {
  std::vector<ExpectedGradient> gradients;
  std::vector<HiddenNorm> hidden;
  std::vector<UpdateSize> updates;
  OutputChange first_step;
};

// Lemma 2's bounds on E‖x_l‖² for a placement at layer l (1-based) and width d: {3d/2, 3d/2} for post,
// {(1 + l/2)d, (1 + 3l/2)d} for pre, NaN otherwise.
std::pair<double, double> lemma2_bounds(nn::Placement placement, std::size_t layer, std::size_t d);

// Builds the run's model (init_seed, so the weights the run starts from), measures at init over `batches`
// minibatches, then trains min(tracked, steps) steps as the run does, recording ‖ΔF‖ after each update.
PaperDiagnostics paper_diagnostics(const RunConfig& config, std::size_t batches, long tracked);

// The CSVs' header lines and rows (the columns run,placement,depth,d,lr,warmup,seed first, as every CSV's).
extern const std::string kExpectedGradsHeader;
extern const std::string kHiddenNormsHeader;
extern const std::string kUpdateSizesHeader;
std::string expected_grad_rows(const RunConfig& config, const PaperDiagnostics& diagnostics);
std::string hidden_norm_rows(const RunConfig& config, const PaperDiagnostics& diagnostics);
std::string update_size_rows(const RunConfig& config, const PaperDiagnostics& diagnostics);

}  // namespace tapegrad::lab
