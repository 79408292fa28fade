#include "tapegrad/lab/sweep.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace tapegrad::lab {

bool SweepGrid::operator==(const SweepGrid& o) const { return to_json(*this) == to_json(o); }

namespace {

template <class T>
void check_list(const std::vector<T>& values, const std::string& name) {
  if (values.empty()) throw Error("sweep: the list of " + name + " is empty");
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j]) throw Error("sweep: the list of " + name + " repeats a value");
}

}  // namespace

std::vector<RunConfig> expand(const SweepGrid& g) {
  check_list(g.placements, "placements");
  check_list(g.lrs, "learning rates");
  check_list(g.warmups, "warmups");
  check_list(g.depths, "depths");
  check_list(g.widths, "widths");
  check_list(g.steps, "step counts");
  check_list(g.batches, "batch sizes");
  check_list(g.seeds, "seeds");
  std::vector<RunConfig> runs;
  for (auto placement : g.placements)
    for (double lr : g.lrs)
      for (long warmup : g.warmups)
        for (std::size_t depth : g.depths)
          for (std::size_t d : g.widths)
            for (long steps : g.steps)
              for (std::size_t batch : g.batches)
                for (std::uint64_t seed : g.seeds) {
                  RunConfig c = g.base;
                  c.placement = placement;
                  c.lr = lr;
                  c.warmup = warmup;
                  c.depth = depth;
                  c.d = d;
                  c.steps = steps;
                  c.batch = batch;
                  c.seed = seed;
                  validate(c);
                  runs.push_back(c);
                }
  return runs;
}

std::string to_json(const SweepGrid& g) {
  nlohmann::ordered_json j;
  std::vector<std::string> placements;
  for (auto p : g.placements) placements.push_back(nn::to_string(p));
  j["placements"] = placements;
  j["lrs"] = g.lrs;
  j["warmups"] = g.warmups;
  j["depths"] = g.depths;
  j["widths"] = g.widths;
  j["steps"] = g.steps;
  j["batches"] = g.batches;
  j["seeds"] = g.seeds;
  j["train_size"] = g.base.train_size;
  j["eval_size"] = g.base.eval_size;
  j["d_in"] = g.base.d_in;
  j["classes"] = g.base.classes;
  j["teacher_hidden"] = g.base.teacher_hidden;
  j["eval_every"] = g.base.eval_every;
  const auto run = nlohmann::json::parse(to_json(g.base));  // the architecture as config.json writes it
  for (const char* key : kArchitectureFields) j[key] = run.at(key);
  return j.dump(2) + "\n";
}

SweepGrid sweep_grid_from_json(const std::string& text) {
  SweepGrid g;
  try {
    const auto j = nlohmann::json::parse(text);
    for (const auto& p : j.at("placements").get<std::vector<std::string>>()) g.placements.push_back(nn::parse_placement(p));
    j.at("lrs").get_to(g.lrs);
    j.at("warmups").get_to(g.warmups);
    j.at("depths").get_to(g.depths);
    j.at("widths").get_to(g.widths);
    j.at("steps").get_to(g.steps);
    j.at("batches").get_to(g.batches);
    j.at("seeds").get_to(g.seeds);
    j.at("train_size").get_to(g.base.train_size);
    j.at("eval_size").get_to(g.base.eval_size);
    j.at("d_in").get_to(g.base.d_in);
    j.at("classes").get_to(g.base.classes);
    j.at("teacher_hidden").get_to(g.base.teacher_hidden);
    j.at("eval_every").get_to(g.base.eval_every);
    // Absent from the sweep.json of folders made before these settings existed: the defaults.
    auto optional = [&](const char* key, auto& field) {
      if (j.contains(key)) j.at(key).get_to(field);
    };
    optional("arch", g.base.arch);
    optional("init", g.base.init);
    optional("norm", g.base.norm);
    optional("activation", g.base.activation);
    optional("ffn_mult", g.base.ffn_mult);
    optional("heads", g.base.heads);
    optional("seq_len", g.base.seq_len);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("sweep.json: not a sweep description (") + e.what() + ")");
  }
  return g;
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Error("--shard: '" + text + "' is not a shard (" + why + "); expected i/n with 0 <= i < n, e.g. 0/4");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad("no '/'");
  const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isdigit(ch); });
  };
  if (!digits(a) || !digits(b)) throw bad("i and n must be whole numbers");
  Shard s{std::stoul(a), std::stoul(b)};
  if (s.count == 0) throw bad("n must be at least 1");
  if (s.index >= s.count) throw bad("i must be less than n; shards count from 0");
  return s;
}

}  // namespace tapegrad::lab
