#pragma once
// What the four normalisation exercises share (norm_catalogue.cpp): their cases, and their catalogue, one
// normalisation on plain loops with a knob per known mistake, each mistake with its hint from the
// exercise's NormHints (LayerNorm's in exercise_layer_norm.cpp; RMSNorm's and BatchNorm's, in their files,
// are LayerNorm's with their own formulas where they differ).

#include <vector>

#include "grader.hpp"

namespace tapegrad::exercise::detail {

enum class Norm { layer, rms, batch };

// One hint per mistake id of the normalisations' catalogue, with the exercise's own formula: LayerNorm's
// (N features of a row), RMSNorm's (no mean, rms = sqrt(mean(x²) + ε)), BatchNorm's (M rows of a feature).
struct NormHints {
  Hint eps_outside_sqrt;
  Hint unbiased_variance;
  Hint wrong_axis;
  Hint affine_missing;
  Hint gamma_beta_swapped;
  Hint eps_missing;
  Hint one_pass_variance;
  Hint mean_term_missing;
  Hint projection_term_missing;
  Hint gamma_not_applied;
  Hint grads_not_summed;
  Hint dgamma_uses_x;
  Hint wrong_scale;
  Hint subtracts_mean;
  Hint stats_not_reset;
  Hint sum_instead_of_mean;
  Hint sigma_division_missing;
  Hint projection_sign_flipped;
  Hint dgamma_wrong_axis;
};
const NormHints& layer_norm_hints();

// The cases, in = {x, gamma, beta, dy}: statistics over the last axis (LayerNorm, RMSNorm), or over every
// axis but the last (BatchNorm, features last).
std::vector<Case> row_cases();
std::vector<Case> column_cases();
inline const Array& x_of(const Case& c) { return c.in[0]; }
inline const Array& gamma_of(const Case& c) { return c.in[1]; }
inline const Array& beta_of(const Case& c) { return c.in[2]; }
inline const Array& dy_of(const Case& c) { return c.in[3]; }

// Which exercise: its normalisation, its hints, and what the learner returns.
struct NormExercise {
  Norm norm;
  const NormHints& hints;
  bool forward, backward;  // y; dx, dgamma (and dbeta)
  bool with_dbeta;
};
// The exercise's catalogue into the spec: every knob mistake, E[x²] − E[x]² (by pattern), and every two
// mistakes of different ids made at once ("a+b").
void add_catalogue(Spec& s, const NormExercise& e);
// The backward against finite differences of the learner's forward: dx (output 1, after y) in x.
FiniteDifferences dx_against_forward();
// The learner's gradients as the grader's outputs, in the order the struct lists them.
inline Outputs norm_grads(const NormGrads& g, bool with_dbeta = true) {
  return with_dbeta ? Outputs{g.dx, g.dgamma, g.dbeta} : Outputs{g.dx, g.dgamma};
}

}  // namespace tapegrad::exercise::detail
