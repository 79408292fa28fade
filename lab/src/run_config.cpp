#include "tapegrad/lab/run_config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tapegrad::lab {

bool RunConfig::operator==(const RunConfig& o) const {
  return placement == o.placement && depth == o.depth && d == o.d && lr == o.lr && warmup == o.warmup &&
         seed == o.seed && steps == o.steps && batch == o.batch && train_size == o.train_size &&
         eval_size == o.eval_size && d_in == o.d_in && classes == o.classes && teacher_hidden == o.teacher_hidden &&
         eval_every == o.eval_every && arch == o.arch && init == o.init && norm == o.norm &&
         activation == o.activation && ffn_mult == o.ffn_mult && heads == o.heads && seq_len == o.seq_len;
}

bool is_transformer(const RunConfig& c) { return c.arch == "transformer"; }

namespace {

void expect_one_of(const char* field, const std::string& value, std::initializer_list<const char*> valid) {
  std::string list;
  for (const char* v : valid) {
    if (value == v) return;
    list += (list.empty() ? "" : ", ") + std::string(v);
  }
  throw Error(std::string("RunConfig: ") + field + " must be one of " + list + ", got \"" + value + "\"");
}

// The settings that are not at their defaults, as "_key" parts (run_id) or ";key=value" parts (seeds).
std::string non_default_settings(const RunConfig& c, bool for_id, bool init_only) {
  const RunConfig defaults;
  std::ostringstream out;
  auto part = [&](const char* key, const std::string& id_text, const std::string& value) {
    if (for_id) out << '_' << id_text;
    else out << ';' << key << '=' << value;
  };
  if (c.arch != defaults.arch) part("arch", c.arch, c.arch);
  if (is_transformer(c) && !init_only) part("heads", "h" + std::to_string(c.heads), std::to_string(c.heads));
  if (is_transformer(c)) part("seq_len", "S" + std::to_string(c.seq_len), std::to_string(c.seq_len));
  if (c.ffn_mult != defaults.ffn_mult) part("ffn_mult", "m" + std::to_string(c.ffn_mult), std::to_string(c.ffn_mult));
  if (c.init != defaults.init) part("init", c.init, c.init);
  if (!init_only && c.norm != defaults.norm) part("norm", c.norm + "norm", c.norm);
  if (!init_only && c.activation != defaults.activation) part("activation", c.activation, c.activation);
  return out.str();
}

}  // namespace

void validate(const RunConfig& c) {
  auto fail = [](const std::string& what) { throw Error("RunConfig: " + what); };
  if (c.depth == 0) fail("depth must be at least 1 block, got 0");
  if (c.d == 0) fail("width d must be positive, got 0");
  if (!(c.lr > 0.0) || !std::isfinite(c.lr)) fail("lr must be a finite number > 0, got " + format_double(c.lr));
  if (c.warmup < 0) fail("warmup must be >= 0 steps, got " + std::to_string(c.warmup));
  if (c.steps <= 0) fail("steps must be positive, got " + std::to_string(c.steps));
  if (c.batch == 0) fail("batch must be positive, got 0");
  if (c.train_size == 0 || c.eval_size == 0) fail("train and eval sets must be non-empty");
  if (c.batch > c.train_size)
    fail("batch " + std::to_string(c.batch) + " is larger than the train set (" + std::to_string(c.train_size) +
         " examples); a minibatch holds distinct examples");
  if (c.d_in == 0 || c.teacher_hidden == 0) fail("d_in and teacher_hidden must be positive");
  if (c.classes < 2) fail("classes must be at least 2, got " + std::to_string(c.classes));
  if (c.eval_every <= 0) fail("eval_every must be positive, got " + std::to_string(c.eval_every));
  expect_one_of("arch", c.arch, {"ffn", "transformer"});
  expect_one_of("init", c.init, {"pytorch", "xavier"});
  expect_one_of("norm", c.norm, {"layer", "rms", "batch"});
  expect_one_of("activation", c.activation, {"relu", "gelu"});
  if (c.ffn_mult == 0) fail("ffn_mult must be positive, got 0");
  if (c.heads == 0) fail("heads must be positive, got 0");
  if (c.seq_len == 0) fail("seq_len must be positive, got 0");
  if (is_transformer(c) && c.d % c.heads != 0)
    fail("width d = " + std::to_string(c.d) + " is not divisible by heads = " + std::to_string(c.heads) +
         " (each head gets d / heads features)");
  using L = RunLimits;
  auto at_most = [&](const char* field, auto value, auto limit) {
    if (value > limit) fail(std::string(field) + " must be at most " + std::to_string(limit) + ", got " + std::to_string(value));
  };
  at_most("depth", c.depth, L::max_depth);
  at_most("width d", c.d, L::max_width);
  at_most("steps", c.steps, L::max_steps);
  at_most("warmup", c.warmup, L::max_steps);
  at_most("eval_every", c.eval_every, L::max_steps);
  at_most("train_size", c.train_size, L::max_set_size);
  at_most("eval_size", c.eval_size, L::max_set_size);
  at_most("d_in", c.d_in, L::max_width);
  at_most("classes", c.classes, L::max_width);
  at_most("teacher_hidden", c.teacher_hidden, L::max_width);
  at_most("ffn_mult", c.ffn_mult, L::max_ffn_mult);
  at_most("heads", c.heads, L::max_width);
  at_most("seq_len", c.seq_len, L::max_seq_len);
  if (estimated_bytes(c) > L::max_bytes)
    fail("this run would need about " + std::to_string(estimated_bytes(c) >> 20) + " MiB (more than the limit of " +
         std::to_string(L::max_bytes >> 20) + " MiB per run); use fewer blocks, a smaller width, batch or data set");
}

std::uint64_t estimated_bytes(const RunConfig& c) {
  // Every factor is bounded by RunLimits or checked before, so no product overflows 64 bits.
  const std::uint64_t d = c.d, depth = c.depth, batch = c.batch, hidden = c.ffn_mult * d;
  if (is_transformer(c)) {
    // Per block: attention (4d² + 4d) and FFN (2·hidden·d + hidden + d) weights, four norms' worth;
    // per token and block: q, k, v, their heads, the scores (heads · S), the FFN hidden (3 tensors), norms.
    const std::uint64_t S = c.seq_len, tokens = batch * S;
    const std::uint64_t params = depth * (4 * d * d + 4 * d + 2 * hidden * d + hidden + d + 8 * d) +
                                 (c.classes + S) * d + (d + 1) * c.classes + 2 * d;
    const std::uint64_t saved_per_step = tokens * depth * (12 * d + 3 * c.heads * S + 3 * hidden + 8 * d);
    const std::uint64_t data = (std::uint64_t{c.train_size} + c.eval_size) * 2 * S;
    const std::uint64_t eval_pass = std::uint64_t{c.eval_size} * S * (4 * d + 2 * c.heads * S + 2 * hidden);
    const std::uint64_t batch_indices = static_cast<std::uint64_t>(c.steps) * batch;
    return 8 * (4 * params + 2 * saved_per_step + data + eval_pass + batch_indices);
  }
  const std::uint64_t params =
      depth * (2 * hidden * d + hidden + 7 * d) + (c.d_in + 1) * d + (d + 1) * c.classes + 2 * d;  // FFNs, norms
  const std::uint64_t saved_per_step = batch * depth * (hidden * 3 + d * 8);  // FFN hidden (3 tensors), norms, residuals
  const std::uint64_t data = (std::uint64_t{c.train_size} + c.eval_size) * (c.d_in + 1);
  const std::uint64_t batch_indices = static_cast<std::uint64_t>(c.steps) * batch;
  return 8 * (4 * params + 2 * saved_per_step + data + batch_indices);
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

std::string run_id(const RunConfig& c) {
  std::ostringstream id;
  id << nn::to_string(c.placement) << "_L" << c.depth << "_d" << c.d << "_lr" << format_double(c.lr) << "_w"
     << c.warmup << "_T" << c.steps << "_b" << c.batch << "_s" << c.seed << non_default_settings(c, true, false);
  return id.str();
}

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
      << ";dims=" << c.d_in << "," << c.classes << non_default_settings(c, false, true);
  return stable_hash(key.str());
}

std::uint64_t batch_seed(const RunConfig& c) {
  std::ostringstream key;
  key << "batches;seed=" << c.seed << ";batch=" << c.batch << ";n=" << c.train_size;
  return stable_hash(key.str());
}

std::string to_json(const RunConfig& c) {
  const auto dn = nn::deepnorm_constants(c.depth);
  nlohmann::ordered_json j;
  j["placement"] = nn::to_string(c.placement);
  j["depth"] = c.depth;
  j["d"] = c.d;
  j["lr"] = c.lr;
  j["warmup"] = c.warmup;
  j["seed"] = c.seed;
  j["steps"] = c.steps;
  j["batch"] = c.batch;
  j["train_size"] = c.train_size;
  j["eval_size"] = c.eval_size;
  j["d_in"] = c.d_in;
  j["classes"] = c.classes;
  j["teacher_hidden"] = c.teacher_hidden;
  j["eval_every"] = c.eval_every;
  j["arch"] = c.arch;
  j["init"] = c.init;
  j["norm"] = c.norm;
  j["activation"] = c.activation;
  j["ffn_mult"] = c.ffn_mult;
  j["heads"] = c.heads;
  j["seq_len"] = c.seq_len;
  // Derived, for readers (tools/replay_torch.py) that should not recompute them.
  j["final_norm"] = nn::needs_final_norm(c.placement);
  j["deepnorm_alpha"] = dn.alpha;
  j["deepnorm_beta"] = dn.beta;
  j["layer_norm_eps"] = nn::ResidualBlockOptions{}.eps;
  j["ffn_hidden"] = c.ffn_mult * c.d;
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
  auto get = [&](const char* key, auto& field) {
    if (!j.contains(key)) throw Error(std::string("run_config_from_json: missing field \"") + key + "\"");
    try {
      j.at(key).get_to(field);
    } catch (const std::exception& e) {
      throw Error(std::string("run_config_from_json: field \"") + key + "\" has the wrong type (" + e.what() + ")");
    }
  };
  std::string placement;
  get("placement", placement);
  c.placement = nn::parse_placement(placement);
  get("depth", c.depth);
  get("d", c.d);
  get("lr", c.lr);
  get("warmup", c.warmup);
  get("seed", c.seed);
  get("steps", c.steps);
  get("batch", c.batch);
  get("train_size", c.train_size);
  get("eval_size", c.eval_size);
  get("d_in", c.d_in);
  get("classes", c.classes);
  get("teacher_hidden", c.teacher_hidden);
  get("eval_every", c.eval_every);
  // Records written before these settings existed are FFN runs with the defaults.
  auto get_optional = [&](const char* key, auto& field) {
    if (j.contains(key)) get(key, field);
  };
  get_optional("arch", c.arch);
  get_optional("init", c.init);
  get_optional("norm", c.norm);
  get_optional("activation", c.activation);
  get_optional("ffn_mult", c.ffn_mult);
  get_optional("heads", c.heads);
  get_optional("seq_len", c.seq_len);
  validate(c);
  return c;
}

}  // namespace tapegrad::lab
