// The normalisation exercises' cases and catalogue (norm_catalogue.hpp): one normalisation on plain loops
// with a knob per known mistake (NormKnobs), run on the same inputs as the learner's code. The exercises
// themselves (their references, hints and checks) are exercise_layer_norm.cpp, exercise_rms_norm.cpp and
// exercise_batch_norm.cpp.

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "norm_catalogue.hpp"

namespace tapegrad::exercise::detail {

// ---- the cases: the seeds' worked examples, random shapes of rank 1-3 with odd sizes and γ, β not
// 1 and 0, 5·randn + 12, a large mean, constant rows, N = 1; always a non-uniform upstream gradient.
// in = {x, gamma, beta, dy}.
static Case norm_case(Text name, Array x, Draw& draw, double eps = 1e-5, bool fd = true, bool affine = true) {
  const std::size_t n = last_dim(x);
  Array gamma = affine ? draw.uniform({n}, 0.5, 1.5) : Array(xt::ones<double>({n}));
  Array beta = affine ? draw.normal({n}, 0.0, 0.5) : Array(xt::zeros<double>({n}));
  Array dy = draw.normal(Shape(x.shape().begin(), x.shape().end()));
  Case c;
  c.name = std::move(name);
  c.in = {std::move(x), std::move(gamma), std::move(beta), std::move(dy)};
  c.eps = eps;
  c.fd = fd;
  return c;
}

std::vector<Case> row_cases() {
  Draw d(26);
  std::vector<Case> cases;
  cases.push_back(norm_case({"worked example x = [3, 4, 5]", "例题 x = [3, 4, 5]"}, Array{3.0, 4.0, 5.0}, d, 1e-5, true, false));
  cases.push_back(norm_case({"worked example x = [3, 3.001, 3.002] (spread ~ eps)", "例题 x = [3, 3.001, 3.002]（方差与 eps 同量级）"},
                            Array{3.0, 3.001, 3.002}, d, 1e-5, true, false));
  cases.push_back(norm_case({"random (7), 5·randn + 12", "随机 (7)，5·randn + 12"}, d.normal({7}, 12, 5), d));
  cases.push_back(norm_case({"random (3, 5), 5·randn + 12", "随机 (3, 5)，5·randn + 12"}, d.normal({3, 5}, 12, 5), d));
  cases.push_back(norm_case({"random (2, 3, 5), eps = 0.1", "随机 (2, 3, 5)，eps = 0.1"}, d.normal({2, 3, 5}), d, 0.1));
  cases.push_back(norm_case({"large mean (4, 6), 1e6 + randn", "大均值 (4, 6)，1e6 + randn"}, d.normal({4, 6}, 1e6, 1), d,
                            1e-5, false));
  Array constant = d.normal({3, 4}, 12, 5);
  for (std::size_t j = 0; j < 4; ++j) constant(0, j) = 7.0, constant(2, j) = -2.0;
  cases.push_back(norm_case({"constant rows (3, 4)", "常数行 (3, 4)"}, constant, d));
  cases.push_back(norm_case({"N = 1 (5, 1)", "N = 1 (5, 1)"}, d.normal({5, 1}, 12, 5), d));
  return cases;
}

static Array column(Array a) {
  a.reshape({a.size(), 1});
  return a;
}

std::vector<Case> column_cases() {
  Draw d(27);
  std::vector<Case> cases;
  cases.push_back(norm_case({"worked example x = [3, 4, 5] as a batch of 3, C = 1", "例题 x = [3, 4, 5]，批大小 3，C = 1"},
                            column(Array{3.0, 4.0, 5.0}), d, 1e-5, true, false));
  cases.push_back(norm_case({"random (7, 3), 5·randn + 12", "随机 (7, 3)，5·randn + 12"}, d.normal({7, 3}, 12, 5), d));
  cases.push_back(norm_case({"random (2, 3, 5)", "随机 (2, 3, 5)"}, d.normal({2, 3, 5}, 12, 5), d));
  cases.push_back(norm_case({"random (5, 4), eps = 0.1", "随机 (5, 4)，eps = 0.1"}, d.normal({5, 4}), d, 0.1));
  cases.push_back(norm_case({"large mean (6, 4), 1e6 + randn", "大均值 (6, 4)，1e6 + randn"}, d.normal({6, 4}, 1e6, 1), d,
                            1e-5, false));
  Array constant = d.normal({4, 3}, 12, 5);
  for (std::size_t i = 0; i < 4; ++i) constant(i, 1) = 7.0;
  cases.push_back(norm_case({"a constant feature (4, 3)", "常数特征列 (4, 3)"}, constant, d));
  cases.push_back(norm_case({"C = 1 (6, 1)", "C = 1 (6, 1)"}, d.normal({6, 1}, 12, 5), d));
  return cases;
}

namespace {

// ---- the catalogue: one normalisation, every known mistake a knob ----
// LayerNorm's group, BatchNorm's, the whole tensor, axis 0 only (xt::mean(x, {0}): numpy's habit)
enum class Over { rows, columns, everything, first_axis };
enum class EpsAt { inside, outside, missing };  // sqrt(var + eps), sqrt(var) + eps, sqrt(var)
enum class Scale { sigma, sigma_squared, times_sigma, none };
// Accumulators declared outside the loop over groups: `m += x; m /= N` (in place) or `s += x; m = s/N`.
enum class Carry { none, in_place, running_sum };
enum class SumOver { rows, first_axis, last_axis };  // dγ, dβ: over every leading axis (right), axis 0, the last

struct NormKnobs {
  bool center = true;  // false: RMSNorm
  Over over = Over::rows;
  int ddof = 0;
  bool ddof_in_derivative = false;  // unbiased variance differentiated consistently
  EpsAt eps_at = EpsAt::inside;
  bool one_pass = false;  // E[x²] − E[x]²
  Carry carry = Carry::none;
  bool use_gamma = true, use_beta = true, swap_gamma_beta = false;
  // backward
  bool mean_term = true, projection_term = true, gamma_in_dx = true;
  bool means_as_sums = false;     // Σg, Σ(g·x̂) where mean(g), mean(g·x̂) belong
  double projection_sign = -1;    // dx = (g − mean(g) + sign·x̂·mean(g·x̂)) / σ
  bool sum_dgamma = true, sum_dbeta = true, dgamma_uses_x = false;
  SumOver dgamma_over = SumOver::rows, dbeta_over = SumOver::rows;
  Scale scale = Scale::sigma;
};

bool same(const NormKnobs& a, const NormKnobs& b) {
  auto tie = [](const NormKnobs& k) {
    return std::tie(k.center, k.over, k.ddof, k.ddof_in_derivative, k.eps_at, k.one_pass, k.carry, k.use_gamma,
                    k.use_beta, k.swap_gamma_beta, k.mean_term, k.projection_term, k.gamma_in_dx, k.means_as_sums,
                    k.projection_sign, k.sum_dgamma, k.sum_dbeta, k.dgamma_uses_x, k.dgamma_over, k.dbeta_over, k.scale);
  };
  return tie(a) == tie(b);
}

// Per element: its group; per group: mean and σ (the denominator); x̂.
struct Stats {
  std::vector<std::size_t> group;
  std::vector<double> mean, sigma, count;
  Array xhat;
};

// The group of element i: its row, its column, 0, or its index past axis 0.
std::size_t group_of(const Array& x, std::size_t i, Over over) {
  const std::size_t C = last_dim(x);
  switch (over) {
    case Over::rows: return i / C;
    case Over::columns: return i % C;
    case Over::everything: return 0;
    default: return x.dimension() <= 1 ? 0 : i % (x.size() / x.shape()[0]);
  }
}
std::size_t group_count(const Array& x, Over over) {
  switch (over) {
    case Over::rows: return rows_of(x);
    case Over::columns: return last_dim(x);
    case Over::everything: return 1;
    default: return x.dimension() <= 1 ? 1 : x.size() / x.shape()[0];
  }
}

// Group by group, in order; with a carry, each starts from the previous group's accumulator.
std::vector<double> carried(const std::vector<double>& sums, const std::vector<double>& count, Carry carry) {
  std::vector<double> out(sums.size());
  double acc = 0;
  for (std::size_t g = 0; g < sums.size(); ++g) {
    if (carry == Carry::in_place) acc = (acc + sums[g]) / count[g], out[g] = acc;
    else if (carry == Carry::running_sum) acc += sums[g], out[g] = acc / count[g];
    else out[g] = sums[g] / count[g];
  }
  return out;
}

Stats stats(const Array& x, double eps, const NormKnobs& k) {
  Stats s;
  const std::size_t groups = group_count(x, k.over);
  s.group.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s.group[i] = group_of(x, i, k.over);
  s.count.assign(groups, 0.0);
  std::vector<double> sum(groups, 0.0), sq(groups, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    s.count[s.group[i]] += 1, sum[s.group[i]] += x.data()[i], sq[s.group[i]] += x.data()[i] * x.data()[i];
  s.mean = k.center ? carried(sum, s.count, k.carry) : std::vector<double>(groups, 0.0);
  std::vector<double> var(groups, 0.0);
  if (k.one_pass) {
    for (std::size_t g = 0; g < groups; ++g) var[g] = sq[g] / s.count[g] - s.mean[g] * s.mean[g];
  } else {
    std::vector<double> dev(groups, 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = x.data()[i] - s.mean[s.group[i]];
      dev[s.group[i]] += d * d;
    }
    var = carried(dev, s.count, k.carry);
  }
  s.sigma.assign(groups, 0.0);
  for (std::size_t g = 0; g < groups; ++g) {
    if (k.ddof) var[g] *= s.count[g] / (s.count[g] - k.ddof);
    s.sigma[g] = k.eps_at == EpsAt::inside ? std::sqrt(var[g] + eps)
               : k.eps_at == EpsAt::outside ? std::sqrt(var[g]) + eps : std::sqrt(var[g]);
  }
  s.xhat = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) s.xhat.data()[i] = (x.data()[i] - s.mean[s.group[i]]) / s.sigma[s.group[i]];
  return s;
}

Array norm_forward(const Array& x, const Array& gamma, const Array& beta, double eps, const NormKnobs& k) {
  const Stats s = stats(x, eps, k);
  const std::size_t C = last_dim(x);
  Array y = s.xhat;
  for (std::size_t i = 0; i < y.size(); ++i) {
    double g = k.use_gamma ? gamma(i % C) : 1.0, b = k.use_beta && beta.size() == C ? beta(i % C) : 0.0;
    if (k.swap_gamma_beta) std::swap(g, b);
    y.data()[i] = g * s.xhat.data()[i] + b;
  }
  return y;
}

// v summed into γ's shape (N) over every leading axis, or (a mistake) over axis 0 or the last axis only.
Array summed(const Array& v, SumOver over) {
  const std::size_t C = last_dim(v);
  if (over == SumOver::rows) {
    Array out = xt::zeros<double>({C});
    for (std::size_t i = 0; i < v.size(); ++i) out(i % C) += v.data()[i];
    return out;
  }
  const Shape full(v.shape().begin(), v.shape().end());
  const Shape kept = over == SumOver::first_axis ? Shape(full.begin() + 1, full.end()) : Shape(full.begin(), full.end() - 1);
  Array out = xt::zeros<double>(kept);
  const std::size_t inner = v.dimension() == 0 ? 1 : v.size() / full[0];
  for (std::size_t i = 0; i < v.size(); ++i) out.data()[over == SumOver::first_axis ? i % inner : i / C] += v.data()[i];
  return out;
}

Outputs norm_backward(const Array& dy, const Array& x, const Array& gamma, double eps, const NormKnobs& k) {
  const Stats s = stats(x, eps, k);
  const std::size_t C = last_dim(x), groups = s.mean.size();
  Array g = dy;
  if (k.gamma_in_dx)
    for (std::size_t i = 0; i < g.size(); ++i) g.data()[i] *= gamma(i % C);
  std::vector<double> mg(groups, 0.0), mgx(groups, 0.0);
  for (std::size_t i = 0; i < g.size(); ++i) mg[s.group[i]] += g.data()[i], mgx[s.group[i]] += g.data()[i] * s.xhat.data()[i];
  for (std::size_t q = 0; q < groups && !k.means_as_sums; ++q) {
    mg[q] /= s.count[q];
    mgx[q] /= s.count[q] - (k.ddof_in_derivative ? k.ddof : 0);
  }
  Array dx = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t q = s.group[i];
    const double sigma = s.sigma[q];
    const double factor = k.scale == Scale::sigma ? 1 / sigma
                        : k.scale == Scale::sigma_squared ? 1 / (sigma * sigma)
                        : k.scale == Scale::times_sigma ? sigma : 1.0;
    double v = g.data()[i];
    if (k.center && k.mean_term) v -= mg[q];
    if (k.projection_term) v += k.projection_sign * s.xhat.data()[i] * mgx[q];
    dx.data()[i] = factor * v;
  }
  const Array& by = k.dgamma_uses_x ? x : s.xhat;
  const Array dgamma = k.sum_dgamma ? summed(dy * by, k.dgamma_over) : Array(dy * by);
  const Array dbeta = k.sum_dbeta ? summed(dy, k.dbeta_over) : dy;
  return {dx, dgamma, dbeta};
}

// ---- the mistakes: a change of the knobs, in the forward, the backward, or both ----
using Change = std::function<void(NormKnobs&)>;
struct Slip {
  std::string id;
  Hint NormHints::*hint;  // the id's hint, beside it
  Change change;
};

std::vector<Slip> forward_slips(const NormKnobs& base, Norm norm) {
  const bool batch = norm == Norm::batch;
  std::vector<Slip> m;
  m.push_back({"eps_outside_sqrt", &NormHints::eps_outside_sqrt, [](NormKnobs& k) { k.eps_at = EpsAt::outside; }});
  if (base.center) {
    m.push_back({"unbiased_variance", &NormHints::unbiased_variance, [](NormKnobs& k) { k.ddof = 1; }});
    m.push_back({"wrong_axis", &NormHints::wrong_axis, [batch](NormKnobs& k) { k.over = batch ? Over::rows : Over::columns; }});
    m.push_back({"wrong_axis", &NormHints::wrong_axis, [](NormKnobs& k) { k.over = Over::everything; }});
    m.push_back({"wrong_axis", &NormHints::wrong_axis, [](NormKnobs& k) { k.over = Over::first_axis; }});  // xt::mean(x, {0}) at every rank
  }
  m.push_back({"affine_missing", &NormHints::affine_missing, [](NormKnobs& k) { k.use_gamma = false; }});
  if (base.center) {
    m.push_back({"affine_missing", &NormHints::affine_missing, [](NormKnobs& k) { k.use_beta = false; }});
    m.push_back({"affine_missing", &NormHints::affine_missing, [](NormKnobs& k) { k.use_gamma = k.use_beta = false; }});
    m.push_back({"gamma_beta_swapped", &NormHints::gamma_beta_swapped, [](NormKnobs& k) { k.swap_gamma_beta = true; }});
  }
  m.push_back({"eps_missing", &NormHints::eps_missing, [](NormKnobs& k) { k.eps_at = EpsAt::missing; }});
  if (!base.center) m.push_back({"subtracts_mean", &NormHints::subtracts_mean, [](NormKnobs& k) { k.center = true; }});
  m.push_back({"stats_not_reset", &NormHints::stats_not_reset, [](NormKnobs& k) { k.carry = Carry::in_place; }});
  m.push_back({"stats_not_reset", &NormHints::stats_not_reset, [](NormKnobs& k) { k.carry = Carry::running_sum; }});
  return m;
}

std::vector<Slip> backward_slips(const NormKnobs& base, Norm norm) {
  const bool batch = norm == Norm::batch;
  std::vector<Slip> m;
  if (base.center) m.push_back({"mean_term_missing", &NormHints::mean_term_missing, [](NormKnobs& k) { k.mean_term = false; }});
  m.push_back({"projection_term_missing", &NormHints::projection_term_missing, [](NormKnobs& k) { k.projection_term = false; }});
  if (base.center) {
    m.push_back({"mean_term_missing", &NormHints::mean_term_missing, [](NormKnobs& k) { k.mean_term = k.projection_term = false; }});
    m.push_back({"wrong_axis", &NormHints::wrong_axis, [batch](NormKnobs& k) { k.over = batch ? Over::rows : Over::columns; }});
    m.push_back({"wrong_axis", &NormHints::wrong_axis, [](NormKnobs& k) { k.over = Over::first_axis; }});
    m.push_back({"unbiased_variance", &NormHints::unbiased_variance, [](NormKnobs& k) { k.ddof = 1; }});
    m.push_back({"unbiased_variance", &NormHints::unbiased_variance, [](NormKnobs& k) { k.ddof = 1, k.ddof_in_derivative = true; }});
  }
  m.push_back({"gamma_not_applied", &NormHints::gamma_not_applied, [](NormKnobs& k) { k.gamma_in_dx = false; }});
  m.push_back({"grads_not_summed", &NormHints::grads_not_summed, [](NormKnobs& k) { k.sum_dgamma = k.sum_dbeta = false; }});
  m.push_back({"grads_not_summed", &NormHints::grads_not_summed, [](NormKnobs& k) { k.sum_dgamma = false; }});
  if (base.center) m.push_back({"grads_not_summed", &NormHints::grads_not_summed, [](NormKnobs& k) { k.sum_dbeta = false; }});
  m.push_back({"dgamma_uses_x", &NormHints::dgamma_uses_x, [](NormKnobs& k) { k.dgamma_uses_x = true; }});
  m.push_back({"wrong_scale", &NormHints::wrong_scale, [](NormKnobs& k) { k.scale = Scale::sigma_squared; }});
  m.push_back({"wrong_scale", &NormHints::wrong_scale, [](NormKnobs& k) { k.scale = Scale::times_sigma; }});
  m.push_back({"eps_outside_sqrt", &NormHints::eps_outside_sqrt, [](NormKnobs& k) { k.eps_at = EpsAt::outside; }});
  if (!base.center) m.push_back({"subtracts_mean", &NormHints::subtracts_mean, [](NormKnobs& k) { k.center = true; }});
  m.push_back({"sum_instead_of_mean", &NormHints::sum_instead_of_mean, [](NormKnobs& k) { k.means_as_sums = true; }});
  m.push_back({"sigma_division_missing", &NormHints::sigma_division_missing, [](NormKnobs& k) { k.scale = Scale::none; }});
  m.push_back({"projection_sign_flipped", &NormHints::projection_sign_flipped, [](NormKnobs& k) { k.projection_sign = +1; }});
  for (SumOver over : {SumOver::first_axis, SumOver::last_axis}) {
    m.push_back({"dgamma_wrong_axis", &NormHints::dgamma_wrong_axis, [over](NormKnobs& k) { k.dgamma_over = over; }});
    if (base.center) m.push_back({"dgamma_wrong_axis", &NormHints::dgamma_wrong_axis, [over](NormKnobs& k) { k.dgamma_over = k.dbeta_over = over; }});
  }
  return m;
}

// The knobs of an exercise's normalisation without a mistake.
NormKnobs base_knobs(Norm norm) {
  NormKnobs k;
  if (norm == Norm::rms) {
    k.center = false;
    k.use_beta = false;  // RMSNorm has no β (the cases' β is ignored)
  }
  if (norm == Norm::batch) k.over = Over::columns;
  return k;
}

Outputs knobbed(const NormExercise& e, const Case& c, const NormKnobs& fwd, const NormKnobs& bwd) {
  Outputs out;
  if (e.forward) out.push_back(norm_forward(x_of(c), gamma_of(c), beta_of(c), c.eps, fwd));
  if (e.backward) {
    Outputs grads = norm_backward(dy_of(c), x_of(c), gamma_of(c), c.eps, bwd);
    if (!e.with_dbeta) grads.pop_back();
    out.insert(out.end(), grads.begin(), grads.end());
  }
  return out;
}

// A catalogued mistake as changes of the forward's knobs and of the backward's (either may be empty).
struct KnobMistake {
  std::string id;
  Hint NormHints::*hint;
  Change fwd, bwd;
};

NormKnobs applied(NormKnobs k, const Change& a, const Change& b = {}) {
  if (a) a(k);
  if (b) b(k);
  return k;
}

// A forward mistake is usually made in the backward too (the same statistics), so in an exercise of
// both each comes both ways; a backward mistake is the backward's alone.
std::vector<KnobMistake> knob_mistakes(const NormExercise& e) {
  const NormKnobs base = base_knobs(e.norm);
  std::vector<KnobMistake> out;
  if (e.forward)
    for (const Slip& s : forward_slips(base, e.norm)) {
      if (!e.backward) {
        out.push_back({s.id, s.hint, s.change, {}});
        continue;
      }
      const Change change = s.change;
      const Change same_statistics = [change](NormKnobs& k) {
        change(k);
        k.use_gamma = k.use_beta = true, k.swap_gamma_beta = false;
      };
      out.push_back({s.id, s.hint, s.change, same_statistics});
      out.push_back({s.id, s.hint, s.change, {}});
    }
  if (e.backward)
    for (const Slip& s : backward_slips(base, e.norm)) out.push_back({s.id, s.hint, {}, s.change});
  return out;
}

Mistake knob_mistake(const NormExercise& e, const std::string& id, const NormKnobs& fwd, const NormKnobs& bwd, Text hint,
                     bool by_pattern = false) {
  return {id, [=](const Case& c) { return knobbed(e, c, fwd, bwd); }, std::move(hint), by_pattern};
}

}  // namespace

// Every two mistakes of different ids made at once are named in the catalogue's order ("a+b").
void add_catalogue(Spec& s, const NormExercise& e) {
  const NormKnobs base = base_knobs(e.norm);
  const std::vector<KnobMistake> singles = knob_mistakes(e);
  for (const KnobMistake& m : singles)
    s.mistakes.push_back(knob_mistake(e, m.id, applied(base, m.fwd), applied(base, m.bwd), (e.hints.*m.hint).text));
  if (base.center) {  // RMSNorm has no mean to cancel against
    NormKnobs one_pass = base;
    one_pass.one_pass = true;
    s.mistakes.push_back(knob_mistake(e, "one_pass_variance", one_pass, one_pass, e.hints.one_pass_variance.text, true));
  }
  std::vector<std::string> order;  // ids by first appearance
  for (const Mistake& m : s.mistakes)
    if (std::find(order.begin(), order.end(), m.id) == order.end()) order.push_back(m.id);
  auto rank = [&](const std::string& id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
  for (std::size_t i = 0; i < singles.size(); ++i)
    for (std::size_t j = i + 1; j < singles.size(); ++j) {
      const KnobMistake *a = &singles[i], *b = &singles[j];
      if (a->id == b->id) continue;
      if (rank(b->id) < rank(a->id)) std::swap(a, b);
      const NormKnobs fwd = applied(base, a->fwd, b->fwd), bwd = applied(base, a->bwd, b->bwd);
      // one change undoing or overriding the other is no pair (eps outside the root and eps missing)
      const bool is_a = same(fwd, applied(base, a->fwd)) && same(bwd, applied(base, a->bwd));
      const bool is_b = same(fwd, applied(base, b->fwd)) && same(bwd, applied(base, b->bwd));
      if (is_a || is_b) continue;
      const Text& ha = (e.hints.*a->hint).text;
      const Text& hb = (e.hints.*b->hint).text;
      s.pairs.push_back(knob_mistake(e, a->id + "+" + b->id, fwd, bwd, {ha.en + " " + hb.en, ha.zh + hb.zh}));
    }
}

FiniteDifferences dx_against_forward() {
  FiniteDifferences fd;
  fd.forward_part = 0, fd.grad_output = 1;
  fd.x_input = 0, fd.dy_input = 3;  // x_of, dy_of
  return fd;
}

}  // namespace tapegrad::exercise::detail
