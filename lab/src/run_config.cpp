#include "tapegrad/lab/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tapegrad/lab/run_fields.hpp"
#include "run_json.hpp"

namespace tapegrad::lab {

bool RunConfig::operator==(const RunConfig& o) const {
  for (const Field& f : run_fields())
    if (f.get(*this) != f.get(o)) return false;
  return true;
}

FieldError::FieldError(std::string field_key, std::string what_is_wrong)
    : Error("RunConfig: " + (field_key.empty() ? "" : field_key + ": ") + what_is_wrong),
      field(std::move(field_key)),
      problem(std::move(what_is_wrong)) {}

namespace {

// The id column's parts of the run, in id order: "_L8", "_xavier", ... (run_id), or ";init=xavier" for the
// settings that change what the init draws (init_seed).
std::string id_parts(const RunConfig& c, bool for_init_seed) {
  std::ostringstream out;
  bool first = true;
  for (const Field* f : id_fields_in_order()) {
    if (!shown_in_id(*f, c)) continue;
    const std::string value = Field::text(f->get(c));
    if (!for_init_seed) out << (first ? "" : "_") << f->id_prefix << value << f->id_suffix;
    else if (f->in_init_seed) out << ';' << f->key << '=' << value;
    first = false;
  }
  return out.str();
}

}  // namespace

void validate(const RunConfig& c) {
  for (const Field& f : run_fields()) {
    const std::string problem = f.problem(f.get(c));
    if (!problem.empty()) throw FieldError(f.key, problem);
  }
  // The rules between fields.
  if (c.batch > c.train_size)
    throw FieldError("batch", "a batch size must be at most the train set size (" + std::to_string(c.train_size) +
                                  "), got " + std::to_string(c.batch) + "; a minibatch holds distinct examples");
  if (is_transformer(c) && c.d % c.heads != 0)
    throw FieldError("heads", std::to_string(c.heads) + " does not divide the width " + std::to_string(c.d) +
                                  " (each head gets d / heads features); choose widths that are multiples of it");
  if (is_transformer(c) && c.kv_heads != 0 && c.heads % c.kv_heads != 0)
    throw FieldError("kv_heads", std::to_string(c.kv_heads) + " key/value heads do not divide the " +
                                     std::to_string(c.heads) + " query heads (each group of heads / kv_heads query " +
                                     "heads shares one)");
  if (is_transformer(c) && c.positions != Positions::learned && (c.d / c.heads) % 2 != 0)
    throw FieldError("positions", "RoPE rotates pairs of features: the head width d / heads = " +
                                      std::to_string(c.d / c.heads) + " must be even");
  using L = RunLimits;
  if (estimated_bytes(c) > L::max_bytes)
    throw FieldError("", "this run would need about " + std::to_string(estimated_bytes(c) >> 20) +
                             " MiB (more than the limit of " + std::to_string(L::max_bytes >> 20) +
                             " MiB per run); use fewer blocks, a smaller width, batch or data set");
}

std::size_t eval_chunk_examples(std::size_t labels_per_example, std::size_t at_least) {
  constexpr std::size_t min_rows = 1024;
  const std::size_t labels = std::max<std::size_t>(labels_per_example, 1);
  return std::max({at_least, (min_rows + labels - 1) / labels, std::size_t{1}});
}

std::uint64_t estimated_bytes(const RunConfig& c) {
  // Every factor is bounded by RunLimits or checked before, so no product overflows 64 bits.
  const std::uint64_t d = c.d, depth = c.depth, batch = c.batch, hidden = c.ffn_mult * d;
  // An evaluation forwards its set in chunks (eval_chunks: fewer than twice the chunk's examples each), so it
  // holds one chunk's activations, not the whole set's.
  const std::uint64_t chunk = eval_chunk_examples(is_transformer(c) ? c.seq_len : 1, c.batch);
  const std::uint64_t eval_examples = std::min<std::uint64_t>(c.eval_size, 2 * chunk - 1);
  if (is_transformer(c)) {
    // Per block: attention (4d² + 4d) and FFN (2·hidden·d + hidden + d) weights, four norms' worth;
    // per token and block: q, k, v, their heads, the scores (heads · S), the FFN hidden (3 tensors), norms.
    const std::uint64_t S = c.seq_len, tokens = batch * S;
    const std::uint64_t params = depth * (4 * d * d + 4 * d + 2 * hidden * d + hidden + d + 8 * d) +
                                 (c.classes + S) * d + (d + 1) * c.classes + 2 * d;
    const std::uint64_t saved_per_step = tokens * depth * (12 * d + 3 * c.heads * S + 3 * hidden + 8 * d);
    const std::uint64_t data = (std::uint64_t{c.train_size} + c.eval_size) * 2 * S;
    const std::uint64_t eval_pass = eval_examples * S * (4 * d + 2 * c.heads * S + 2 * hidden);
    const std::uint64_t batch_indices = static_cast<std::uint64_t>(c.steps) * batch;
    return 8 * (4 * params + 2 * saved_per_step + data + eval_pass + batch_indices);
  }
  const std::uint64_t params =
      depth * (2 * hidden * d + hidden + 7 * d) + (c.d_in + 1) * d + (d + 1) * c.classes + 2 * d;  // FFNs, norms
  const std::uint64_t saved_per_step = batch * depth * (hidden * 3 + d * 8);  // FFN hidden (3 tensors), norms, residuals
  const std::uint64_t data = (std::uint64_t{c.train_size} + c.eval_size) * (c.d_in + 1);
  const std::uint64_t eval_pass = eval_examples * (2 * hidden + 4 * d);  // a chunk's FFN hidden and residual
  const std::uint64_t batch_indices = static_cast<std::uint64_t>(c.steps) * batch;
  return 8 * (4 * params + 2 * saved_per_step + data + eval_pass + batch_indices);
}

std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;  // the shortest text that round-trips
  }
  return buf;
}

std::string run_id(const RunConfig& c) { return id_parts(c, false); }

// FNV-1a over the text, then SplitMix64's finaliser to spread the bits: a
// stable hash (std::hash is not specified to be the same across builds).
std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

std::uint64_t data_seed(const RunConfig& c) {
  std::ostringstream key;
  key << "data;seed=" << c.seed << ";n=" << c.train_size << "," << c.eval_size << ";dims=" << c.d_in << ","
      << c.teacher_hidden << "," << c.classes;
  if (is_transformer(c)) key << ";sequence;S=" << c.seq_len;
  return stable_hash(key.str());
}

std::uint64_t init_seed(const RunConfig& c) {
  std::ostringstream key;
  key << "init;seed=" << c.seed << ";placement=" << nn::to_string(c.placement) << ";L=" << c.depth << ";d=" << c.d
      << ";dims=" << c.d_in << "," << c.classes << id_parts(c, true);
  return stable_hash(key.str());
}

std::uint64_t dropout_seed(const RunConfig& c) { return stable_hash("dropout;" + std::to_string(init_seed(c))); }

std::uint64_t batch_seed(const RunConfig& c) {
  std::ostringstream key;
  key << "batches;seed=" << c.seed << ";batch=" << c.batch << ";n=" << c.train_size;
  return stable_hash(key.str());
}

FieldValue field_value_from_json(const Field& f, const nlohmann::json& j) {
  if (f.kind == Field::Kind::choice && j.is_string()) return j.get<std::string>();
  if (f.kind == Field::Kind::real && j.is_number()) return j.get<double>();
  if (f.kind == Field::Kind::count && j.is_number_unsigned()) {
    const auto n = j.get<std::uint64_t>();  // beyond long long: out of every range
    return n > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()) ? std::numeric_limits<long long>::max()
                                                                                 : static_cast<long long>(n);
  }
  if (f.kind == Field::Kind::count && j.is_number_integer()) return j.get<long long>();
  throw FieldError(f.key, "has the wrong type in JSON (" + std::string(j.type_name()) + ": " + j.dump() + ")");
}

std::size_t ffn_hidden(const RunConfig& c) {
  const std::size_t plain = c.ffn_mult * c.d;
  if (c.activation != Activation::swiglu) return plain;
  const std::size_t two_thirds = (2 * plain + 2) / 3;  // ⌈2·plain/3⌉
  return (two_thirds + 7) / 8 * 8;
}

bool has_final_norm(const RunConfig& c) {
  return nn::needs_final_norm(c.placement) && c.final_norm_mode == FinalNormMode::automatic;
}

std::string to_json(const RunConfig& c) {
  nlohmann::ordered_json j;
  for (const Field& f : run_fields())
    if (!f.omitted_at_default || f.get(c) != f.get(RunConfig{})) j[f.key] = json_of(f.get(c));
  // Derived, for readers (tools/replay_torch.py) that should not recompute them.
  const auto dn = nn::deepnorm_constants(c.depth);
  j["final_norm"] = has_final_norm(c);
  j["deepnorm_alpha"] = dn.alpha;
  j["deepnorm_beta"] = dn.beta;
  j["layer_norm_eps"] = nn::ResidualBlockOptions{}.eps;
  j["ffn_hidden"] = ffn_hidden(c);
  j["copy_offset"] = kCopyOffset;
  j["adam"] = {{"betas", {0.9, 0.999}}, {"eps", 1e-8}, {"weight_decay", 0.0}};
  return j.dump(2) + "\n";
}

RunConfig run_config_from_json(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw Error(std::string("run_config_from_json: not valid JSON (") + e.what() + ")");
  }
  RunConfig c;
  for (const Field& f : run_fields()) {
    if (!j.contains(f.key)) {
      // Records written before the architecture settings existed are FFN runs with the defaults.
      if (f.absent_means_default) continue;
      throw Error("run_config_from_json: missing field \"" + f.key + "\"");
    }
    const FieldValue v = field_value_from_json(f, j.at(f.key));
    const std::string problem = f.problem(v);
    if (!problem.empty()) throw FieldError(f.key, problem);
    f.set(c, v);
  }
  validate(c);
  return c;
}

}  // namespace tapegrad::lab
