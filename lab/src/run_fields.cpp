#include "tapegrad/lab/run_fields.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace tapegrad::lab {

// ---- the choices: each enum's names, in enum order (the one place they are spelled) ----

template <>
const std::vector<std::string>& choice_names<nn::Placement>() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (nn::Placement p : nn::all_placements()) out.push_back(nn::to_string(p));
    return out;
  }();
  return names;
}
template <>
const std::vector<std::string>& choice_names<Arch>() {
  static const std::vector<std::string> names{"ffn", "transformer"};
  return names;
}
template <>
const std::vector<std::string>& choice_names<Init>() {
  static const std::vector<std::string> names{"pytorch", "xavier"};
  return names;
}
template <>
const std::vector<std::string>& choice_names<NormKind>() {
  static const std::vector<std::string> names{"layer", "rms", "batch"};
  return names;
}
template <>
const std::vector<std::string>& choice_names<Activation>() {
  // The library's names (to_string(Activation)); gelu_tanh, its third, is not offered.
  static const std::vector<std::string> names{to_string(Activation::relu), to_string(Activation::gelu)};
  return names;
}

template <>
const std::vector<std::string>& choice_names<RunPrecision>() {
  static const std::vector<std::string> names{"fp64",       "fp32",       "bf16",
                                              "fp16",       "bf16-mixed", "fp16-mixed",
                                              "bf16-mixed-noscale", "fp16-mixed-noscale"};
  return names;
}

template <class E>
E parse_choice(const std::string& name) {
  const auto& names = choice_names<E>();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw Error("expected one of " + list + ", got '" + name + "'");
  }
  return static_cast<E>(it - names.begin());
}
template nn::Placement parse_choice<nn::Placement>(const std::string&);
template Arch parse_choice<Arch>(const std::string&);
template Init parse_choice<Init>(const std::string&);
template NormKind parse_choice<NormKind>(const std::string&);
template Activation parse_choice<Activation>(const std::string&);
template RunPrecision parse_choice<RunPrecision>(const std::string&);

std::string to_string(Arch v) { return choice_names<Arch>().at(static_cast<std::size_t>(v)); }
std::string to_string(Init v) { return choice_names<Init>().at(static_cast<std::size_t>(v)); }
std::string to_string(NormKind v) { return choice_names<NormKind>().at(static_cast<std::size_t>(v)); }
std::string to_string(RunPrecision v) { return choice_names<RunPrecision>().at(static_cast<std::size_t>(v)); }

namespace {

// ---- a row's access, from the member of RunConfig (and the grid's list for an axis) ----

template <class T>
FieldValue to_value(const T& x) {
  if constexpr (std::is_enum_v<T>) return choice_names<T>().at(static_cast<std::size_t>(x));
  else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(x);
  else return static_cast<long long>(x);
}

template <class T>
T from_value(const FieldValue& v) {
  if constexpr (std::is_enum_v<T>) return parse_choice<T>(std::get<std::string>(v));
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::get<double>(v));
  else return static_cast<T>(std::get<long long>(v));
}

template <class T>
Field::Kind kind_of() {
  if constexpr (std::is_enum_v<T>) return Field::Kind::choice;
  else if constexpr (std::is_floating_point_v<T>) return Field::Kind::real;
  else return Field::Kind::count;
}

// A row: the member, its role and texts; the range and the id/seed columns are set by the helpers below.
template <class T>
Field row(const char* key, T RunConfig::*member, Field::Role role, const char* option, const char* what,
          const char* help) {
  Field f;
  f.key = f.sweep_key = key;
  f.option = option;
  f.what = what;
  f.help = help;
  f.role = role;
  f.absent_means_default = role == Field::Role::setting;  // the architecture's choices came later
  f.kind = kind_of<T>();
  if constexpr (std::is_enum_v<T>) f.choices = choice_names<T>();
  f.get = [member](const RunConfig& c) { return to_value(c.*member); };
  f.set = [member](RunConfig& c, const FieldValue& v) { c.*member = from_value<T>(v); };
  f.grid_values = [member](const SweepGrid& g) { return std::vector<FieldValue>{to_value(g.base.*member)}; };
  f.set_grid_values = [member, key](SweepGrid& g, const std::vector<FieldValue>& values) {
    if (values.size() != 1) throw Error(std::string("sweep: ") + key + " takes one value per sweep");
    g.base.*member = from_value<T>(values[0]);
  };
  return f;
}

// An axis: also its list in SweepGrid, and its place in the canonical order.
template <class T>
Field axis(const char* key, T RunConfig::*member, const char* list_key, std::vector<T> SweepGrid::*list, int rank,
           const char* option, const char* what, const char* help) {
  Field f = row(key, member, Field::Role::axis, option, what, help);
  f.axis_rank = rank;
  f.sweep_key = list_key;
  f.grid_values = [list](const SweepGrid& g) {
    std::vector<FieldValue> out;
    for (const T& x : g.*list) out.push_back(to_value(x));
    return out;
  };
  f.set_grid_values = [list](SweepGrid& g, const std::vector<FieldValue>& values) {
    (g.*list).clear();
    for (const FieldValue& v : values) (g.*list).push_back(from_value<T>(v));
  };
  return f;
}

// A setting a sweep may list: its list in SweepGrid (empty or one value: base's).
template <class T>
Field setting(const char* key, T RunConfig::*member, std::vector<T> SweepGrid::*list, const char* option,
              const char* what, const char* help) {
  Field f = row(key, member, Field::Role::setting, option, what, help);
  f.grid_values = [member, list](const SweepGrid& g) {
    std::vector<FieldValue> out;
    for (const T& x : g.*list) out.push_back(to_value(x));
    if (out.empty()) out.push_back(to_value(g.base.*member));
    return out;
  };
  f.set_grid_values = [member, list](SweepGrid& g, const std::vector<FieldValue>& values) {
    (g.*list).clear();
    if (values.size() == 1) g.base.*member = from_value<T>(values[0]);  // one value: as before lists existed
    else
      for (const FieldValue& v : values) (g.*list).push_back(from_value<T>(v));
  };
  return f;
}

Field&& range(Field&& f, long long min, long long max) {
  f.min = min, f.max = max;
  return std::move(f);
}

Field&& id(Field&& f, int rank, Field::Shown shown, const char* prefix, const char* suffix = "") {
  f.id_rank = rank, f.id_shown = shown, f.id_prefix = prefix, f.id_suffix = suffix;
  return std::move(f);
}

Field&& sweep_default(Field&& f, const char* words) {
  f.sweep_default = words;
  return std::move(f);
}

std::vector<Field> make_table() {
  using L = RunLimits;
  using R = Field::Role;
  using S = Field::Shown;
  const long long max_set = static_cast<long long>(L::max_set_size), max_width = static_cast<long long>(L::max_width);
  std::vector<Field> t;
  // The swept axes. The rank is the canonical order (expand, sweep.json: placement outermost, seed innermost);
  // the id column gives "post_L8_d32_lr0.01_w0_T300_b64_s0".
  t.push_back(sweep_default(id(axis("placement", &RunConfig::placement, "placements", &SweepGrid::placements, 1, "--placements",
                                    "a placement", "Norm placements: post, pre, deepnorm, rezero, sandwich, none"),
                               1, S::always, ""),
                            "post,pre,deepnorm,rezero,sandwich,none"));
  t.push_back(sweep_default(id(range(axis("depth", &RunConfig::depth, "depths", &SweepGrid::depths, 4, "--depths",
                                          "a depth (number of blocks)", "Depths L (number of residual blocks)"),
                                     1, static_cast<long long>(L::max_depth)),
                               2, S::always, "L"),
                            "2,4,8,16,32"));
  t.push_back(id(range(axis("d", &RunConfig::d, "widths", &SweepGrid::widths, 5, "-d,--widths", "a width",
                            "Widths d of the residual stream"),
                       1, max_width),
                 3, S::always, "d"));
  // Defaults chosen so that Post-Norm's breakdown shows in about a minute on 2 cores: at 3e-3 it trains to
  // depth 16 and collapses at 32; at 1e-2 it collapses from depth 16; a 100-step warmup rescues depth 32 at
  // 3e-3 (docs/lab.md).
  t.push_back(sweep_default(id(axis("lr", &RunConfig::lr, "lrs", &SweepGrid::lrs, 2, "--lrs", "a learning rate",
                                    "Peak learning rates of Adam"),
                               4, S::always, "lr"),
                            "3e-3,1e-2"));
  t.push_back(sweep_default(id(range(axis("warmup", &RunConfig::warmup, "warmups", &SweepGrid::warmups, 3, "--warmups",
                                          "a warmup (in steps)",
                                          "Linear warmup lengths in steps (0: none): lr*min(1,(t+1)/W)"),
                                     0, L::max_steps),
                               5, S::always, "w"),
                            "0,100"));
  t.push_back(id(range(axis("seed", &RunConfig::seed, "seeds", &SweepGrid::seeds, 8, "--seeds", "a seed",
                            "Seeds (each its own data, init and batches)"),
                       0, std::numeric_limits<long long>::max()),
                 8, S::always, "s"));
  t.push_back(sweep_default(id(range(axis("steps", &RunConfig::steps, "steps", &SweepGrid::steps, 6, "--steps",
                                          "the number of steps", "Training steps per run"),
                                     1, L::max_steps),
                               6, S::always, "T"),
                            "200"));
  t.push_back(id(range(axis("batch", &RunConfig::batch, "batches", &SweepGrid::batches, 7, "--batch", "a batch size",
                            "Minibatch sizes (at most --train-size: a minibatch holds distinct examples)"),
                       1, max_set),
                 7, S::always, "b"));
  // The task: one value per sweep.
  t.push_back(range(row("train_size", &RunConfig::train_size, R::task, "--train-size", "the train set size",
                        "Train set size (drawn once per seed)"),
                    1, max_set));
  t.push_back(range(row("eval_size", &RunConfig::eval_size, R::task, "--eval-size", "the eval set size",
                        "Eval set size (drawn once per seed)"),
                    1, max_set));
  t.push_back(range(row("d_in", &RunConfig::d_in, R::task, "", "the input width", ""), 1, max_width));
  t.push_back(range(row("classes", &RunConfig::classes, R::task, "", "the number of classes", ""), 2, max_width));
  t.push_back(range(row("teacher_hidden", &RunConfig::teacher_hidden, R::task, "", "the teacher's hidden width", ""),
                    1, max_width));
  t.push_back(range(row("eval_every", &RunConfig::eval_every, R::task, "--eval-every", "the eval interval",
                        "Evaluate every this many steps (for the collapse criterion)"),
                    1, L::max_steps));
  // The architecture and its choices, mentioned in the run id only away from their defaults
  // ("..._s0_transformer_h4_S16_m2_xavier_rmsnorm_gelu"); arch, seq_len, ffn_mult and init change
  // what the init draws, so its seed mentions them the same way.
  Field arch = id(row("arch", &RunConfig::arch, R::task, "--arch", "an architecture",
                      "Architecture: ffn (FFN blocks on the teacher task) or transformer (attention + FFN blocks on "
                      "the copy task)"),
                  9, S::unless_default, "");
  arch.in_init_seed = arch.absent_means_default = true;
  t.push_back(std::move(arch));
  Field init = id(setting("init", &RunConfig::init, &SweepGrid::inits, "--inits,--init", "an initialisation",
                      "Initialisations: pytorch (PyTorch's defaults) or xavier (the papers': Xavier-uniform Linear "
                      "weights, zero biases)"),
                  13, S::unless_default, "");
  init.in_init_seed = true;
  t.push_back(std::move(init));
  t.push_back(id(setting("norm", &RunConfig::norm, &SweepGrid::norms, "--norms,--norm", "a norm",
                     "The placement's norms and the final norm: layer (LayerNorm), rms (RMSNorm) or batch "
                     "(BatchNorm over the batch, and over every position of it for transformer)"),
                 14, S::unless_default, "", "norm"));
  t.push_back(id(setting("activation", &RunConfig::activation, &SweepGrid::activations, "--activations,--activation", "an activation",
                     "The FFN's activation: relu or gelu"),
                 15, S::unless_default, ""));
  Field ffn_mult = id(range(setting("ffn_mult", &RunConfig::ffn_mult, &SweepGrid::ffn_mults, "--ffn-mults,--ffn-mult",
                                "the FFN width multiplier", "FFN hidden width = this times d"),
                            1, static_cast<long long>(L::max_ffn_mult)),
                      12, S::unless_default, "m");
  ffn_mult.in_init_seed = true;
  t.push_back(std::move(ffn_mult));
  Field heads = id(range(setting("heads", &RunConfig::heads, &SweepGrid::head_counts, "--heads", "the number of heads",
                             "transformer: attention heads (must divide every width)"),
                         1, max_width),
                   10, S::transformer_only, "h");
  heads.transformer_only = true;
  t.push_back(std::move(heads));
  Field seq_len = id(range(setting("seq_len", &RunConfig::seq_len, &SweepGrid::seq_lens, "--seq-lens,--seq-len", "the sequence length",
                               "transformer: tokens per sequence"),
                           1, static_cast<long long>(L::max_seq_len)),
                     11, S::transformer_only, "S");
  seq_len.transformer_only = seq_len.in_init_seed = true;
  t.push_back(std::move(seq_len));
  // Not in the init seed: every precision starts from the same float64 draw, rounded to its format.
  Field precision = id(setting("precision", &RunConfig::precision, &SweepGrid::precisions, "--precisions,--precision",
                               "a precision",
                               "Number formats (emulated): fp64 (the default), fp32, bf16, fp16 (the whole model "
                               "in it), bf16-mixed, fp16-mixed (float32 master weights and a dynamic loss scale, "
                               "as AMP), bf16-mixed-noscale, fp16-mixed-noscale (master weights only)"),
                       16, S::unless_default, "");
  precision.absent_means_default = precision.omitted_at_default = true;
  t.push_back(std::move(precision));
  return t;
}

}  // namespace

const std::vector<Field>& run_fields() {
  static const std::vector<Field> table = make_table();
  return table;
}

const Field& run_field(const std::string& key) {
  for (const Field& f : run_fields())
    if (f.key == key) return f;
  throw Error("RunConfig has no field '" + key + "'");
}

std::vector<const Field*> axes_in_order() {
  std::vector<const Field*> out;
  for (const Field& f : run_fields())
    if (f.is_axis()) out.push_back(&f);
  std::sort(out.begin(), out.end(), [](const Field* a, const Field* b) { return a->axis_rank < b->axis_rank; });
  return out;
}

std::vector<const Field*> id_fields_in_order() {
  std::vector<const Field*> out;
  for (const Field& f : run_fields())
    if (f.id_shown != Field::Shown::never) out.push_back(&f);
  std::sort(out.begin(), out.end(), [](const Field* a, const Field* b) { return a->id_rank < b->id_rank; });
  return out;
}

std::vector<std::pair<const Field*, std::vector<FieldValue>>> listed_settings(const SweepGrid& g) {
  std::vector<std::pair<const Field*, std::vector<FieldValue>>> out;
  for (const Field& f : run_fields()) {
    std::vector<FieldValue> values = f.grid_values(g);
    if (!f.is_axis() && values.size() > 1) out.emplace_back(&f, std::move(values));
  }
  return out;
}

bool shown_in_id(const Field& f, const RunConfig& c) {
  switch (f.id_shown) {
    case Field::Shown::always: return true;
    case Field::Shown::unless_default: return f.get(c) != f.get(RunConfig{});
    case Field::Shown::transformer_only: return is_transformer(c);
    case Field::Shown::never: return false;
  }
  return false;
}

std::string choice_list(const Field& f) {
  std::string list;
  for (const auto& n : f.choices) list += (list.empty() ? "" : ", ") + n;
  return list;
}

std::string Field::text(const FieldValue& v) {
  if (const auto* n = std::get_if<long long>(&v)) return std::to_string(*n);
  if (const auto* x = std::get_if<double>(&v)) return format_double(*x);
  return std::get<std::string>(v);
}

std::string Field::problem(const FieldValue& v) const {
  switch (kind) {
    case Kind::count: {
      const auto* n = std::get_if<long long>(&v);
      if (!n) return what + " must be a whole number, got " + text(v);
      if (*n < min || *n > max)
        return what + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
               std::to_string(*n);
      return "";
    }
    case Kind::real: {
      const auto* x = std::get_if<double>(&v);
      if (!x) return what + " must be a number, got " + text(v);
      if (!(*x > 0.0) || !std::isfinite(*x)) return what + " must be a finite number > 0, got " + format_double(*x);
      return "";
    }
    case Kind::choice: {
      const auto* name = std::get_if<std::string>(&v);
      if (!name || std::find(choices.begin(), choices.end(), *name) == choices.end())
        return "expected one of " + choice_list(*this) + ", got '" + text(v) + "'";
      return "";
    }
  }
  return "";
}

FieldValue Field::parse(const std::string& word) const {
  if (kind == Kind::choice) return word;
  const char* begin = word.c_str();
  char* end = nullptr;
  errno = 0;
  if (kind == Kind::real) {
    const double x = std::strtod(begin, &end);
    if (word.empty() || *end != '\0') throw FieldError(key, "'" + word + "' is not a number");
    return x;
  }
  const long long n = std::strtoll(begin, &end, 10);
  if (word.empty() || *end != '\0') throw FieldError(key, "'" + word + "' is not a whole number");
  if (errno == ERANGE)  // beyond long long: out of every range
    throw FieldError(key, what + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                              ", got " + word);
  return n;
}

}  // namespace tapegrad::lab
