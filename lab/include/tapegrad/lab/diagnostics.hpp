#pragma once
// The papers' diagnostics of one run, measured while it trains (train() in depth_run.cpp calls these):
//
//   init gradients   per block l and sublayer, ‖∂L/∂W‖ (Frobenius) of the sublayer's output projection
//                    (DepthModel::output_projections) on the first minibatch at initialisation, and the
//                    block's hidden-state norm. Xiong et al. 2020 (Fig. 3, Thm. 1): Post-Norm's grows
//                    toward the last block and its last block's does not shrink with depth L; Pre-Norm's
//                    is flat across blocks and shrinks like 1/√L.
//   output change    Liu et al. 2020's amplification: how far the first optimizer step moves the model's
//                    output, √(mean over the probe's rows of ‖f(x; θ₁) − f(x; θ₀)‖²), f the logits, θ₁ the
//                    weights after the first Adam update, the probe a fixed batch (the first `batch` rows
//                    of the eval set). Post-Norm's grows with depth, Pre-Norm's much less.

#include <limits>
#include <string>
#include <vector>

#include "tapegrad/lab/depth_model.hpp"
#include "tapegrad/lab/teacher_task.hpp"

namespace tapegrad::lab {

// One row of init_grads.csv.
struct SublayerInitGrad {
  std::size_t block;
  std::string sublayer;     // the weight's name within the block: "ffn.fc2.weight"
  double weight_grad_norm;  // ‖∂loss/∂W‖, 0 if W got no gradient (ReZero's α = 0 blocks it)
  double hidden_norm;       // √(mean over the batch of ‖h_l‖²), h_l the output of block l (same for each sublayer)
};

// After the first backward: one row per block and output projection, in block order. grad_scale: the loss scale
// the gradients carry (mixed precision), divided out of the norms.
std::vector<SublayerInitGrad> init_weight_grads(const DepthModel& model, const std::vector<Tensor>& block_outputs,
                                                double grad_scale = 1.0);

// √(mean over the rows (first dimension) of the squared norm of each row): the size of a batch's outputs.
double rms_row_norm(const Array& rows);

// One row of output_change.csv.
struct OutputChange {
  std::size_t probe_rows = 0;
  double step_lr = std::numeric_limits<double>::quiet_NaN();        // the first update's learning rate
  double output_rms = std::numeric_limits<double>::quiet_NaN();     // rms_row_norm(f(x; θ₀))
  double output_change = std::numeric_limits<double>::quiet_NaN();  // rms_row_norm(f(x; θ₁) − f(x; θ₀))
};

// The probe: the first min(rows, size) examples of data.
Dataset probe_batch(const Dataset& data, std::size_t rows);

// The model's output on the probe: no tape, and in eval mode so that no running statistic moves
// (the training that follows is bitwise the same as without the probe).
Array probe_output(DepthModel& model, const Dataset& probe);

OutputChange output_change(const Array& before, const Array& after, double step_lr);

}  // namespace tapegrad::lab
