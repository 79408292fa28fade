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
  // The library's names in enum order (parse_choice maps a name to its index): relu, gelu, gelu_tanh, silu and
  // swiglu, the gated FFN.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::silu, Activation::swiglu})
      out.push_back(to_string(a));
    for (std::size_t i = 0; i < out.size(); ++i)  // the index is the enum's value
      if (parse_activation("lab", out[i]) != static_cast<Activation>(i)) throw Error("choice_names<Activation>: order");
    return out;
  }();
  return names;
}

template <>
const std::vector<std::string>& choice_names<RunPrecision>() {
  static const std::vector<std::string> names{"fp64",       "fp32",       "bf16",
                                              "fp16",       "bf16-mixed", "fp16-mixed",
                                              "bf16-mixed-noscale", "fp16-mixed-noscale"};
  return names;
}

template <>
const std::vector<std::string>& choice_names<FinalNormMode>() {
  static const std::vector<std::string> names{"auto", "none"};
  return names;
}
template <>
const std::vector<std::string>& choice_names<Positions>() {
  static const std::vector<std::string> names{"learned", "rope", "rope-interleaved"};
  return names;
}
template <>
const std::vector<std::string>& choice_names<EmbedScale>() {
  static const std::vector<std::string> names{"normal", "unit"};
  return names;
}

template <>
const std::vector<std::string>& choice_names<Task>() {
  static const std::vector<std::string> names{"synthetic", "poems", "english"};
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
template FinalNormMode parse_choice<FinalNormMode>(const std::string&);
template EmbedScale parse_choice<EmbedScale>(const std::string&);
template Positions parse_choice<Positions>(const std::string&);
template Task parse_choice<Task>(const std::string&);

std::string to_string(Arch v) { return choice_names<Arch>().at(static_cast<std::size_t>(v)); }
std::string to_string(Init v) { return choice_names<Init>().at(static_cast<std::size_t>(v)); }
std::string to_string(NormKind v) { return choice_names<NormKind>().at(static_cast<std::size_t>(v)); }
std::string to_string(FinalNormMode v) { return choice_names<FinalNormMode>().at(static_cast<std::size_t>(v)); }
std::string to_string(EmbedScale v) { return choice_names<EmbedScale>().at(static_cast<std::size_t>(v)); }
std::string to_string(Task v) { return choice_names<Task>().at(static_cast<std::size_t>(v)); }
std::string to_string(Positions v) { return choice_names<Positions>().at(static_cast<std::size_t>(v)); }
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

// A row of the table under construction: made from the member of RunConfig (and the grid's list), then each
// call sets one more column and hands the row on, so that a row reads left to right:
//   axis("depth", ...).range(1, max_depth).id(2, S::always, "L").sweep_default("2,4,8,16,32")
struct Row {
  Field f;
  Row&& range(long long min, long long max) && {
    f.min = min, f.max = max;
    return std::move(*this);
  }
  Row&& probability() && {
    f.probability = true;
    return std::move(*this);
  }
  Row&& id(int rank, Field::Shown shown, const char* prefix, const char* suffix = "") && {
    f.id_rank = rank, f.id_shown = shown, f.id_prefix = prefix, f.id_suffix = suffix;
    return std::move(*this);
  }
  Row&& sweep_default(const char* words) && {
    f.sweep_default = words;
    return std::move(*this);
  }
  Row&& in_init_seed() && {
    f.in_init_seed = true;
    return std::move(*this);
  }
  Row&& transformer_only() && {
    f.transformer_only = true;
    return std::move(*this);
  }
  Row&& absent_means_default() && {
    f.absent_means_default = true;
    return std::move(*this);
  }
  // Left out of config.json and sweep.json at its default (and so absent from old files: its default).
  Row&& omitted_at_default() && {
    f.absent_means_default = f.omitted_at_default = true;
    return std::move(*this);
  }
  operator Field() && { return std::move(f); }
};

// A row: the member, its role and texts.
template <class T>
Row row(const char* key, T RunConfig::*member, Field::Role role, const char* option, const char* what,
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
  return {std::move(f)};
}

// An axis: also its list in SweepGrid, and its place in the canonical order.
template <class T>
Row axis(const char* key, T RunConfig::*member, const char* list_key, std::vector<T> SweepGrid::*list, int rank,
         const char* option, const char* what, const char* help) {
  Row r = row(key, member, Field::Role::axis, option, what, help);
  r.f.axis_rank = rank;
  r.f.sweep_key = list_key;
  r.f.grid_values = [list](const SweepGrid& g) {
    std::vector<FieldValue> out;
    for (const T& x : g.*list) out.push_back(to_value(x));
    return out;
  };
  r.f.set_grid_values = [list](SweepGrid& g, const std::vector<FieldValue>& values) {
    (g.*list).clear();
    for (const FieldValue& v : values) (g.*list).push_back(from_value<T>(v));
  };
  return r;
}

// A setting a sweep may list: its list in SweepGrid (empty or one value: base's).
template <class T>
Row setting(const char* key, T RunConfig::*member, std::vector<T> SweepGrid::*list, const char* option,
            const char* what, const char* help) {
  Row r = row(key, member, Field::Role::setting, option, what, help);
  r.f.grid_values = [member, list](const SweepGrid& g) {
    std::vector<FieldValue> out;
    for (const T& x : g.*list) out.push_back(to_value(x));
    if (out.empty()) out.push_back(to_value(g.base.*member));
    return out;
  };
  r.f.set_grid_values = [member, list](SweepGrid& g, const std::vector<FieldValue>& values) {
    (g.*list).clear();
    if (values.size() == 1) g.base.*member = from_value<T>(values[0]);  // one value: as before lists existed
    else
      for (const FieldValue& v : values) (g.*list).push_back(from_value<T>(v));
  };
  return r;
}

std::vector<Field> make_table() {
  using L = RunLimits;
  using R = Field::Role;
  using S = Field::Shown;
  const long long max_set = static_cast<long long>(L::max_set_size), max_width = static_cast<long long>(L::max_width);
  std::vector<Field> t;
  // The swept axes. The rank is the canonical order (expand, sweep.json: placement outermost, seed innermost);
  // the id column gives "post_L8_d32_lr0.01_w0_T300_b64_s0".
  t.push_back(axis("placement", &RunConfig::placement, "placements", &SweepGrid::placements, 1, "--placements",
                   "a placement", "Norm placements: post, pre, deepnorm, rezero, sandwich, none")
                  .id(1, S::always, "")
                  .sweep_default("post,pre,deepnorm,rezero,sandwich,none"));
  t.push_back(axis("depth", &RunConfig::depth, "depths", &SweepGrid::depths, 4, "--depths",
                   "a depth (number of blocks)", "Depths L (number of residual blocks)")
                  .range(1, static_cast<long long>(L::max_depth))
                  .id(2, S::always, "L")
                  .sweep_default("2,4,8,16,32"));
  t.push_back(axis("d", &RunConfig::d, "widths", &SweepGrid::widths, 5, "-d,--widths", "a width",
                   "Widths d of the residual stream")
                  .range(1, max_width)
                  .id(3, S::always, "d"));
  // Defaults chosen so that Post-Norm's breakdown shows in about a minute on 2 cores: at 3e-3 it trains to
  // depth 16 and collapses at 32; at 1e-2 it collapses from depth 16; a 100-step warmup rescues depth 32 at
  // 3e-3 (docs/lab.md).
  t.push_back(axis("lr", &RunConfig::lr, "lrs", &SweepGrid::lrs, 2, "--lrs", "a learning rate",
                   "Peak learning rates of Adam")
                  .id(4, S::always, "lr")
                  .sweep_default("3e-3,1e-2"));
  t.push_back(axis("warmup", &RunConfig::warmup, "warmups", &SweepGrid::warmups, 3, "--warmups", "a warmup (in steps)",
                   "Linear warmup lengths in steps (0: none): lr*min(1,(t+1)/W)")
                  .range(0, L::max_steps)
                  .id(5, S::always, "w")
                  .sweep_default("0,100"));
  t.push_back(axis("seed", &RunConfig::seed, "seeds", &SweepGrid::seeds, 8, "--seeds", "a seed",
                   "Seeds (each its own data, init and batches)")
                  .range(0, std::numeric_limits<long long>::max())
                  .id(8, S::always, "s")
                  // Three: the summary's verdict is the median run's, which the last bits of a BLAS kernel
                  // cannot move as they move one chaotic run (summary.hpp, issue 41).
                  .sweep_default("0,1,2"));
  t.push_back(axis("steps", &RunConfig::steps, "steps", &SweepGrid::steps, 6, "--steps", "the number of steps",
                   "Training steps per run")
                  .range(1, L::max_steps)
                  .id(6, S::always, "T")
                  .sweep_default("200"));
  t.push_back(axis("batch", &RunConfig::batch, "batches", &SweepGrid::batches, 7, "--batch", "a batch size",
                   "Minibatch sizes (at most --train-size: a minibatch holds distinct examples)")
                  .range(1, max_set)
                  .id(7, S::always, "b"));
  // The task: one value per sweep.
  t.push_back(row("train_size", &RunConfig::train_size, R::task, "--train-size", "the train set size",
                  "Train set size (drawn once per seed)")
                  .range(1, max_set));
  t.push_back(row("eval_size", &RunConfig::eval_size, R::task, "--eval-size", "the eval set size",
                  "Eval set size (drawn once per seed)")
                  .range(1, max_set));
  t.push_back(row("d_in", &RunConfig::d_in, R::task, "", "the input width", "").range(1, max_width));
  t.push_back(row("classes", &RunConfig::classes, R::task, "", "the number of classes", "").range(2, max_width));
  t.push_back(row("teacher_hidden", &RunConfig::teacher_hidden, R::task, "", "the teacher's hidden width", "")
                  .range(1, max_width));
  t.push_back(row("eval_every", &RunConfig::eval_every, R::task, "--eval-every", "the eval interval",
                  "Evaluate every this many steps (for the collapse criterion)")
                  .range(1, L::max_steps));
  // The architecture and its choices, mentioned in the run id only away from their defaults
  // ("..._s0_transformer_h4_S16_m2_xavier_rmsnorm_gelu"); arch, seq_len, ffn_mult and init change
  // what the init draws, so its seed mentions them the same way.
  t.push_back(row("arch", &RunConfig::arch, R::task, "--arch", "an architecture",
                  "Architecture: ffn (FFN blocks on the teacher task) or transformer (attention + FFN blocks on "
                  "the copy task)")
                  .id(9, S::unless_default, "")
                  .in_init_seed()
                  .absent_means_default());
  t.push_back(setting("init", &RunConfig::init, &SweepGrid::inits, "--inits,--init", "an initialisation",
                      "Initialisations: pytorch (PyTorch's defaults) or xavier (the papers': Xavier-uniform Linear "
                      "weights, zero biases)")
                  .id(13, S::unless_default, "")
                  .in_init_seed());
  t.push_back(setting("norm", &RunConfig::norm, &SweepGrid::norms, "--norms,--norm", "a norm",
                      "The placement's norms and the final norm: layer (LayerNorm), rms (RMSNorm) or batch "
                      "(BatchNorm over the batch, and over every position of it for transformer)")
                  .id(14, S::unless_default, "", "norm"));
  t.push_back(setting("activation", &RunConfig::activation, &SweepGrid::activations, "--activations,--activation",
                      "an activation",
                      "The FFN's activation: relu, gelu (exact), gelu_tanh, silu, or swiglu (LLaMA's gated FFN, 2/3 "
                      "of the hidden width)")
                  .id(15, S::unless_default, ""));
  t.push_back(setting("ffn_mult", &RunConfig::ffn_mult, &SweepGrid::ffn_mults, "--ffn-mults,--ffn-mult",
                      "the FFN width multiplier", "FFN hidden width = this times d")
                  .range(1, static_cast<long long>(L::max_ffn_mult))
                  .id(12, S::unless_default, "m")
                  .in_init_seed());
  t.push_back(setting("heads", &RunConfig::heads, &SweepGrid::head_counts, "--heads", "the number of heads",
                      "transformer: attention heads (must divide every width)")
                  .range(1, max_width)
                  .id(10, S::transformer_only, "h")
                  .transformer_only());
  t.push_back(setting("seq_len", &RunConfig::seq_len, &SweepGrid::seq_lens, "--seq-lens,--seq-len",
                      "the sequence length", "transformer: tokens per sequence")
                  .range(1, static_cast<long long>(L::max_seq_len))
                  .id(11, S::transformer_only, "S")
                  .transformer_only()
                  .in_init_seed());
  // Not in the init seed: every precision starts from the same float64 draw, rounded to its format.
  t.push_back(setting("precision", &RunConfig::precision, &SweepGrid::precisions, "--precisions,--precision",
                      "a precision",
                      "Number formats (emulated): fp64 (the default), fp32, bf16, fp16 (the whole model "
                      "in it), bf16-mixed, fp16-mixed (float32 master weights and a dynamic loss scale, "
                      "as AMP), bf16-mixed-noscale, fp16-mixed-noscale (master weights only)")
                  .id(16, S::unless_default, "")
                  .omitted_at_default());
  // The width study's checks, one value per sweep, in the id and the files only away from their defaults
  // ("..._final-none", "..._embed-unit"). Neither changes what the init draws.
  t.push_back(row("final_norm_mode", &RunConfig::final_norm_mode, R::task, "--final-norm-mode", "a final-norm mode",
                  "auto (the placement's final norm: pre and sandwich have one) or none (no final norm)")
                  .id(17, S::unless_default, "final-")
                  .omitted_at_default());
  t.push_back(row("embed_scale", &RunConfig::embed_scale, R::task, "--embed-scale", "an embedding scale",
                  "transformer: normal (embeddings N(0,1), E||x_0||^2 = 2d) or unit (scaled to E||x_0||^2 = 1, "
                  "Xiong et al.'s unit-norm inputs)")
                  .id(18, S::unless_default, "embed-")
                  .transformer_only()
                  .omitted_at_default());
  // The LLaMA-style attention (--preset llama): in the id ("..._rope_kv2") and the files only away from the
  // defaults. Both change what the init draws (no position table; smaller k and v projections).
  t.push_back(row("positions", &RunConfig::positions, R::task, "--positions", "a kind of positions",
                  "transformer: learned (a position embedding, GPT-2), rope (RoPE, half-split pairs as Hugging "
                  "Face) or rope-interleaved (RoPE, pairs (2i, 2i+1) as Meta's LLaMA)")
                  .id(19, S::unless_default, "")
                  .transformer_only()
                  .in_init_seed()
                  .omitted_at_default());
  t.push_back(row("kv_heads", &RunConfig::kv_heads, R::task, "--kv-heads", "a number of key/value heads",
                  "transformer: key/value heads, 0 = --heads (multi-head), 1 = multi-query, a divisor of --heads = "
                  "grouped-query attention")
                  .range(0, max_width)
                  .id(20, S::unless_default, "kv")
                  .transformer_only()
                  .in_init_seed()
                  .omitted_at_default());
  // The data: in the id ("..._poems") and the files only away from synthetic. Not in the init seed: a text task's
  // vocabulary (classes) already is.
  t.push_back(row("task", &RunConfig::task, R::task, "--task", "a task",
                  "synthetic (the teacher task for ffn, the copy task for transformer), or character-level language "
                  "modelling: poems (the Tang poems of fortunes-zh) or english (the fortunes package), trained by "
                  "`tapegrad-depth poems`, or swept here with --arch transformer (--preset transformer|llama), the "
                  "verdict against the corpus's bigram and unigram baselines (scripts/lab-poems-depth.sh)")
                  .id(21, S::unless_default, "")
                  .omitted_at_default());
  // Residual dropout (the original Transformer's P_drop, GPT-2's resid_pdrop): each sublayer's output dropped
  // before it joins the residual stream, in training only. It draws from its own stream (dropout_seed), so the
  // init, the data and the batches are those of the same run without it.
  t.push_back(setting("dropout", &RunConfig::dropout, &SweepGrid::dropouts, "--dropouts,--dropout",
                      "a dropout probability",
                      "Residual dropout: each sublayer's output is dropped with this probability before it joins "
                      "the residual stream, in training only (0: none)")
                  .probability()
                  .id(22, S::unless_default, "drop")
                  .omitted_at_default());
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

std::vector<const Field*> setting_columns() {
  std::vector<const Field*> out;
  for (const Field* f : id_fields_in_order())
    if (!f->is_axis()) out.push_back(f);
  return out;
}

std::string setting_columns_header() {
  std::string header;
  for (const Field* f : setting_columns()) header += "," + f->key;
  return header;
}

std::string setting_column_text(const Field& f, const RunConfig& c) {
  if (f.transformer_only && !is_transformer(c)) return "";
  return Field::text(f.get(c));
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
      if (probability) {
        if (!(*x >= 0.0 && *x < 1.0)) return what + " must be a number in [0, 1), got " + format_double(*x);
        return "";
      }
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
