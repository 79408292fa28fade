// The learner-style files (tests/exercises/learner_style/), each one correct and with the SLIP_* macros
// of one or two mistakes defined, each in its own namespace. The correct ones pass; each mistake gets its
// own id ("a+b" for two).
#include "exercise_test_common.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

namespace learner_0_layer_norm_forward_xtensor {
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
}  // namespace learner_0_layer_norm_forward_xtensor
namespace learner_1_layer_norm_forward_xtensor {
#define SLIP_WRONG_AXIS
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_WRONG_AXIS
}  // namespace learner_1_layer_norm_forward_xtensor
namespace learner_2_layer_norm_forward_xtensor {
#define SLIP_EPS_OUTSIDE_SQRT
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_EPS_OUTSIDE_SQRT
}  // namespace learner_2_layer_norm_forward_xtensor
namespace learner_3_layer_norm_forward_xtensor {
#define SLIP_UNBIASED_VARIANCE
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_UNBIASED_VARIANCE
}  // namespace learner_3_layer_norm_forward_xtensor
namespace learner_4_layer_norm_forward_xtensor {
#define SLIP_AFFINE_MISSING
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_AFFINE_MISSING
}  // namespace learner_4_layer_norm_forward_xtensor
namespace learner_5_layer_norm_forward_xtensor {
#define SLIP_EPS_OUTSIDE_SQRT
#define SLIP_UNBIASED_VARIANCE
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_EPS_OUTSIDE_SQRT
#undef SLIP_UNBIASED_VARIANCE
}  // namespace learner_5_layer_norm_forward_xtensor
namespace learner_6_layer_norm_forward_xtensor {
#define SLIP_WRONG_AXIS
#define SLIP_EPS_OUTSIDE_SQRT
#include "learner_style/02_layer_norm_forward_xtensor.cpp"
#undef SLIP_WRONG_AXIS
#undef SLIP_EPS_OUTSIDE_SQRT
}  // namespace learner_6_layer_norm_forward_xtensor
namespace learner_7_layer_norm_forward_stats_not_reset {
#include "learner_style/02_layer_norm_forward_stats_not_reset.cpp"
}  // namespace learner_7_layer_norm_forward_stats_not_reset
namespace learner_8_layer_norm_backward_xtensor {
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
}  // namespace learner_8_layer_norm_backward_xtensor
namespace learner_9_layer_norm_backward_xtensor {
#define SLIP_GAMMA_NOT_APPLIED
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_GAMMA_NOT_APPLIED
}  // namespace learner_9_layer_norm_backward_xtensor
namespace learner_10_layer_norm_backward_xtensor {
#define SLIP_MEAN_TERM_MISSING
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_MEAN_TERM_MISSING
}  // namespace learner_10_layer_norm_backward_xtensor
namespace learner_11_layer_norm_backward_xtensor {
#define SLIP_PROJECTION_TERM_MISSING
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_PROJECTION_TERM_MISSING
}  // namespace learner_11_layer_norm_backward_xtensor
namespace learner_12_layer_norm_backward_xtensor {
#define SLIP_SUM_INSTEAD_OF_MEAN
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_SUM_INSTEAD_OF_MEAN
}  // namespace learner_12_layer_norm_backward_xtensor
namespace learner_13_layer_norm_backward_xtensor {
#define SLIP_SIGMA_DIVISION_MISSING
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_SIGMA_DIVISION_MISSING
}  // namespace learner_13_layer_norm_backward_xtensor
namespace learner_14_layer_norm_backward_xtensor {
#define SLIP_PROJECTION_SIGN_FLIPPED
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_PROJECTION_SIGN_FLIPPED
}  // namespace learner_14_layer_norm_backward_xtensor
namespace learner_15_layer_norm_backward_xtensor {
#define SLIP_DGAMMA_WRONG_AXIS
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_DGAMMA_WRONG_AXIS
}  // namespace learner_15_layer_norm_backward_xtensor
namespace learner_16_layer_norm_backward_xtensor {
#define SLIP_GAMMA_NOT_APPLIED
#define SLIP_PROJECTION_SIGN_FLIPPED
#include "learner_style/03_layer_norm_backward_xtensor.cpp"
#undef SLIP_GAMMA_NOT_APPLIED
#undef SLIP_PROJECTION_SIGN_FLIPPED
}  // namespace learner_16_layer_norm_backward_xtensor
namespace learner_17_rms_norm_xtensor {
#include "learner_style/04_rms_norm_xtensor.cpp"
}  // namespace learner_17_rms_norm_xtensor
namespace learner_18_rms_norm_xtensor {
#define SLIP_EPS_OUTSIDE_SQRT
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_EPS_OUTSIDE_SQRT
}  // namespace learner_18_rms_norm_xtensor
namespace learner_19_rms_norm_xtensor {
#define SLIP_PROJECTION_TERM_MISSING
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_PROJECTION_TERM_MISSING
}  // namespace learner_19_rms_norm_xtensor
namespace learner_20_rms_norm_xtensor {
#define SLIP_GRADS_NOT_SUMMED
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_GRADS_NOT_SUMMED
}  // namespace learner_20_rms_norm_xtensor
namespace learner_21_rms_norm_xtensor {
#define SLIP_SUM_INSTEAD_OF_MEAN
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_SUM_INSTEAD_OF_MEAN
}  // namespace learner_21_rms_norm_xtensor
namespace learner_22_rms_norm_xtensor {
#define SLIP_SIGMA_DIVISION_MISSING
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_SIGMA_DIVISION_MISSING
}  // namespace learner_22_rms_norm_xtensor
namespace learner_23_rms_norm_xtensor {
#define SLIP_PROJECTION_SIGN_FLIPPED
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_PROJECTION_SIGN_FLIPPED
}  // namespace learner_23_rms_norm_xtensor
namespace learner_24_rms_norm_xtensor {
#define SLIP_DGAMMA_WRONG_AXIS
#include "learner_style/04_rms_norm_xtensor.cpp"
#undef SLIP_DGAMMA_WRONG_AXIS
}  // namespace learner_24_rms_norm_xtensor
namespace learner_25_rms_norm_stats_not_reset {
#include "learner_style/04_rms_norm_stats_not_reset.cpp"
}  // namespace learner_25_rms_norm_stats_not_reset
namespace learner_26_batch_norm_xtensor {
#include "learner_style/05_batch_norm_xtensor.cpp"
}  // namespace learner_26_batch_norm_xtensor
namespace learner_27_batch_norm_xtensor {
#define SLIP_EPS_OUTSIDE_SQRT
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_EPS_OUTSIDE_SQRT
}  // namespace learner_27_batch_norm_xtensor
namespace learner_28_batch_norm_xtensor {
#define SLIP_UNBIASED_VARIANCE
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_UNBIASED_VARIANCE
}  // namespace learner_28_batch_norm_xtensor
namespace learner_29_batch_norm_xtensor {
#define SLIP_MEAN_TERM_MISSING
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_MEAN_TERM_MISSING
}  // namespace learner_29_batch_norm_xtensor
namespace learner_30_batch_norm_xtensor {
#define SLIP_PROJECTION_TERM_MISSING
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_PROJECTION_TERM_MISSING
}  // namespace learner_30_batch_norm_xtensor
namespace learner_31_batch_norm_xtensor {
#define SLIP_SUM_INSTEAD_OF_MEAN
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_SUM_INSTEAD_OF_MEAN
}  // namespace learner_31_batch_norm_xtensor
namespace learner_32_batch_norm_xtensor {
#define SLIP_SIGMA_DIVISION_MISSING
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_SIGMA_DIVISION_MISSING
}  // namespace learner_32_batch_norm_xtensor
namespace learner_33_batch_norm_xtensor {
#define SLIP_PROJECTION_SIGN_FLIPPED
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_PROJECTION_SIGN_FLIPPED
}  // namespace learner_33_batch_norm_xtensor
namespace learner_34_batch_norm_xtensor {
#define SLIP_DGAMMA_WRONG_AXIS
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_DGAMMA_WRONG_AXIS
}  // namespace learner_34_batch_norm_xtensor
namespace learner_35_batch_norm_xtensor {
#define SLIP_WRONG_AXIS
#include "learner_style/05_batch_norm_xtensor.cpp"
#undef SLIP_WRONG_AXIS
}  // namespace learner_35_batch_norm_xtensor
namespace learner_36_batch_norm_stats_not_reset {
#include "learner_style/05_batch_norm_stats_not_reset.cpp"
}  // namespace learner_36_batch_norm_stats_not_reset

namespace learner_ffn_pass {
#include "learner_style/06_ffn_gelu.cpp"
}
#define SLIP_GELU_TANH
namespace learner_ffn_tanh {
#include "learner_style/06_ffn_gelu.cpp"
}
#undef SLIP_GELU_TANH
#define SLIP_GELU_GRAD_PHI_ONLY
namespace learner_ffn_phi {
#include "learner_style/06_ffn_gelu.cpp"
}
#undef SLIP_GELU_GRAD_PHI_ONLY
namespace learner_adam_pass {
#include "learner_style/10_adam_step_loops.cpp"
}
#define SLIP_OLD_MOMENTS
namespace learner_adam_old_moments {
#include "learner_style/10_adam_step_loops.cpp"
}
#undef SLIP_OLD_MOMENTS
#define SLIP_STEP_NOT_INCREMENTED
namespace learner_adam_step {
#include "learner_style/10_adam_step_loops.cpp"
}
#undef SLIP_STEP_NOT_INCREMENTED
#define SLIP_ABS_INSTEAD_OF_SQUARE
namespace learner_adam_abs {
#include "learner_style/10_adam_step_loops.cpp"
}
#undef SLIP_ABS_INSTEAD_OF_SQUARE

using namespace tapegrad::exercise;

const std::vector<Planted>& learner_style_mistakes() {
  static const std::vector<Planted> p = {
      {"ffn", "gelu_tanh_approximation", [](const Options& o) { return check_ffn(learner_ffn_tanh::ffn_forward, learner_ffn_tanh::ffn_backward, o); }},
      {"ffn", "gelu_grad_phi_only", [](const Options& o) { return check_ffn(learner_ffn_phi::ffn_forward, learner_ffn_phi::ffn_backward, o); }},
      {"adam_step", "old_moments", [](const Options& o) { return check_adam_step(learner_adam_old_moments::adam_step, o); }},
      {"adam_step", "step_not_incremented", [](const Options& o) { return check_adam_step(learner_adam_step::adam_step, o); }},
      {"adam_step", "abs_instead_of_square", [](const Options& o) { return check_adam_step(learner_adam_abs::adam_step, o); }},
      {"layer_norm_forward", "wrong_axis", [](const Options& o) { return check_layer_norm_forward(learner_1_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "eps_outside_sqrt", [](const Options& o) { return check_layer_norm_forward(learner_2_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "unbiased_variance", [](const Options& o) { return check_layer_norm_forward(learner_3_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "affine_missing", [](const Options& o) { return check_layer_norm_forward(learner_4_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "eps_outside_sqrt+unbiased_variance", [](const Options& o) { return check_layer_norm_forward(learner_5_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "eps_outside_sqrt+wrong_axis", [](const Options& o) { return check_layer_norm_forward(learner_6_layer_norm_forward_xtensor::layer_norm_forward, o); }},
      {"layer_norm_forward", "stats_not_reset", [](const Options& o) { return check_layer_norm_forward(learner_7_layer_norm_forward_stats_not_reset::layer_norm_forward, o); }},
      {"layer_norm_backward", "gamma_not_applied", [](const Options& o) { return check_layer_norm_backward(learner_9_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "mean_term_missing", [](const Options& o) { return check_layer_norm_backward(learner_10_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "projection_term_missing", [](const Options& o) { return check_layer_norm_backward(learner_11_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "sum_instead_of_mean", [](const Options& o) { return check_layer_norm_backward(learner_12_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "sigma_division_missing", [](const Options& o) { return check_layer_norm_backward(learner_13_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "projection_sign_flipped", [](const Options& o) { return check_layer_norm_backward(learner_14_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "dgamma_wrong_axis", [](const Options& o) { return check_layer_norm_backward(learner_15_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"layer_norm_backward", "gamma_not_applied+projection_sign_flipped", [](const Options& o) { return check_layer_norm_backward(learner_16_layer_norm_backward_xtensor::layer_norm_backward, o); }},
      {"rms_norm", "eps_outside_sqrt", [](const Options& o) { return check_rms_norm(learner_18_rms_norm_xtensor::rms_norm_forward, learner_18_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "projection_term_missing", [](const Options& o) { return check_rms_norm(learner_19_rms_norm_xtensor::rms_norm_forward, learner_19_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "grads_not_summed", [](const Options& o) { return check_rms_norm(learner_20_rms_norm_xtensor::rms_norm_forward, learner_20_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "sum_instead_of_mean", [](const Options& o) { return check_rms_norm(learner_21_rms_norm_xtensor::rms_norm_forward, learner_21_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "sigma_division_missing", [](const Options& o) { return check_rms_norm(learner_22_rms_norm_xtensor::rms_norm_forward, learner_22_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "projection_sign_flipped", [](const Options& o) { return check_rms_norm(learner_23_rms_norm_xtensor::rms_norm_forward, learner_23_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "dgamma_wrong_axis", [](const Options& o) { return check_rms_norm(learner_24_rms_norm_xtensor::rms_norm_forward, learner_24_rms_norm_xtensor::rms_norm_backward, o); }},
      {"rms_norm", "stats_not_reset", [](const Options& o) { return check_rms_norm(learner_25_rms_norm_stats_not_reset::rms_norm_forward, learner_25_rms_norm_stats_not_reset::rms_norm_backward, o); }},
      {"batch_norm", "eps_outside_sqrt", [](const Options& o) { return check_batch_norm(learner_27_batch_norm_xtensor::batch_norm_forward, learner_27_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "unbiased_variance", [](const Options& o) { return check_batch_norm(learner_28_batch_norm_xtensor::batch_norm_forward, learner_28_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "mean_term_missing", [](const Options& o) { return check_batch_norm(learner_29_batch_norm_xtensor::batch_norm_forward, learner_29_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "projection_term_missing", [](const Options& o) { return check_batch_norm(learner_30_batch_norm_xtensor::batch_norm_forward, learner_30_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "sum_instead_of_mean", [](const Options& o) { return check_batch_norm(learner_31_batch_norm_xtensor::batch_norm_forward, learner_31_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "sigma_division_missing", [](const Options& o) { return check_batch_norm(learner_32_batch_norm_xtensor::batch_norm_forward, learner_32_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "projection_sign_flipped", [](const Options& o) { return check_batch_norm(learner_33_batch_norm_xtensor::batch_norm_forward, learner_33_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "dgamma_wrong_axis", [](const Options& o) { return check_batch_norm(learner_34_batch_norm_xtensor::batch_norm_forward, learner_34_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "wrong_axis+dgamma_wrong_axis", [](const Options& o) { return check_batch_norm(learner_35_batch_norm_xtensor::batch_norm_forward, learner_35_batch_norm_xtensor::batch_norm_backward, o); }},
      {"batch_norm", "stats_not_reset", [](const Options& o) { return check_batch_norm(learner_36_batch_norm_stats_not_reset::batch_norm_forward, learner_36_batch_norm_stats_not_reset::batch_norm_backward, o); }},
  };
  return p;
}

TEST_CASE("exercise: correct solutions in xtensor expressions pass (LayerNorm, RMSNorm, BatchNorm)", "[exercise]") {
  const Options o = english();
  auto passes = [](const Report& r) {
    INFO(r.to_string());
    CHECK(r.passed);
    CHECK(r.result_line() == "result: pass");
  };
  passes(check_layer_norm_forward(learner_0_layer_norm_forward_xtensor::layer_norm_forward, o));  // 02_layer_norm_forward_xtensor.cpp
  passes(check_layer_norm_backward(learner_8_layer_norm_backward_xtensor::layer_norm_backward, o));  // 03_layer_norm_backward_xtensor.cpp
  passes(check_rms_norm(learner_17_rms_norm_xtensor::rms_norm_forward, learner_17_rms_norm_xtensor::rms_norm_backward, o));  // 04_rms_norm_xtensor.cpp
  passes(check_batch_norm(learner_26_batch_norm_xtensor::batch_norm_forward, learner_26_batch_norm_xtensor::batch_norm_backward, o));  // 05_batch_norm_xtensor.cpp
}

TEST_CASE("exercise: the learner-style FFN and Adam files pass when right", "[exercise]") {
  const Report ffn = check_ffn(learner_ffn_pass::ffn_forward, learner_ffn_pass::ffn_backward, english());
  const Report adam = check_adam_step(learner_adam_pass::adam_step, english());
  INFO(ffn.to_string() << adam.to_string());
  CHECK(ffn.passed);
  CHECK(adam.passed);
}

TEST_CASE("exercise: learner-style mistakes of ffn get their own ids", "[exercise]") {
  check_planted("ffn", learner_style_mistakes());
}

TEST_CASE("exercise: learner-style mistakes of adam_step get their own ids", "[exercise]") {
  check_planted("adam_step", learner_style_mistakes());
}

TEST_CASE("exercise: learner-style mistakes of layer_norm_forward get their own ids", "[exercise]") {
  check_planted("layer_norm_forward", learner_style_mistakes());
}

TEST_CASE("exercise: learner-style mistakes of layer_norm_backward get their own ids", "[exercise]") {
  check_planted("layer_norm_backward", learner_style_mistakes());
}

TEST_CASE("exercise: learner-style mistakes of rms_norm get their own ids", "[exercise]") {
  check_planted("rms_norm", learner_style_mistakes());
}

TEST_CASE("exercise: learner-style mistakes of batch_norm get their own ids", "[exercise]") {
  check_planted("batch_norm", learner_style_mistakes());
}
