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
         eval_every == o.eval_every;
}

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
  if (estimated_bytes(c) > L::max_bytes)
    fail("this run would need about " + std::to_string(estimated_bytes(c) >> 20) + " MiB (more than the limit of " +
         std::to_string(L::max_bytes >> 20) + " MiB per run); use fewer blocks, a smaller width, batch or data set");
}

std::uint64_t estimated_bytes(const RunConfig& c) {
  // Every factor is bounded by RunLimits or checked before, so no product overflows 64 bits.
  const std::uint64_t d = c.d, depth = c.depth, batch = c.batch;
  const std::uint64_t params = depth * (8 * d * d + 9 * d + 2 * d) + (c.d_in + 1) * d + (d + 1) * c.classes + 2 * d;
  const std::uint64_t saved_per_step = batch * depth * (4 * d * 3 + d * 8);  // FFN hidden (3 tensors), norms, residuals
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
     << c.warmup << "_T" << c.steps << "_b" << c.batch << "_s" << c.seed;
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
  return stable_hash(key.str());
}

std::uint64_t init_seed(const RunConfig& c) {
  std::ostringstream key;
  key << "init;seed=" << c.seed << ";placement=" << nn::to_string(c.placement) << ";L=" << c.depth << ";d=" << c.d
      << ";dims=" << c.d_in << "," << c.classes;
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
  // Derived, for readers (tools/replay_torch.py) that should not recompute them.
  j["final_norm"] = nn::needs_final_norm(c.placement);
  j["deepnorm_alpha"] = dn.alpha;
  j["deepnorm_beta"] = dn.beta;
  j["layer_norm_eps"] = nn::ResidualBlockOptions{}.eps;
  j["ffn_hidden"] = 4 * c.d;
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
  validate(c);
  return c;
}

}  // namespace tapegrad::lab
