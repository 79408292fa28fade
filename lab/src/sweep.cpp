#include "tapegrad/lab/sweep.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "run_json.hpp"
#include "tapegrad/lab/run_fields.hpp"

namespace tapegrad::lab {

bool SweepGrid::operator==(const SweepGrid& o) const { return to_json(*this) == to_json(o); }

namespace {

// The fields in the sweep's order: the axes canonically (placement outermost, seed innermost), then the others
// in the table's order (each one value per sweep, or a list for a swept setting: innermost).
std::vector<const Field*> sweep_order() {
  std::vector<const Field*> out = axes_in_order();
  for (const Field& f : run_fields())
    if (!f.is_axis()) out.push_back(&f);
  return out;
}

void check_list(const Field& f, const std::vector<FieldValue>& values) {
  if (values.empty()) throw FieldError(f.key, "the sweep's list of values is empty");
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j])
        throw FieldError(f.key, "the sweep's list repeats a value (" + Field::text(values[i]) + ")");
}

}  // namespace

std::vector<RunConfig> expand(const SweepGrid& g) {
  const std::vector<const Field*> fields = sweep_order();
  std::vector<std::vector<FieldValue>> lists;
  for (const Field* f : fields) {
    lists.push_back(f->grid_values(g));
    check_list(*f, lists.back());
  }
  // An odometer over the lists, the last field turning fastest.
  std::vector<RunConfig> runs;
  std::vector<std::size_t> at(fields.size(), 0);
  while (true) {
    RunConfig c = g.base;
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const FieldValue& v = lists[k][at[k]];
      const std::string problem = fields[k]->problem(v);
      if (!problem.empty()) throw FieldError(fields[k]->key, problem);
      fields[k]->set(c, v);
    }
    validate(c);
    runs.push_back(c);
    std::size_t k = fields.size();
    while (k > 0 && ++at[k - 1] == lists[k - 1].size()) at[--k] = 0;
    if (k == 0) return runs;
  }
}

std::string to_json(const SweepGrid& g) {
  nlohmann::ordered_json j;
  for (const Field* f : sweep_order()) {
    const std::vector<FieldValue> values = f->grid_values(g);
    if (f->omitted_at_default && values.size() == 1 && values[0] == f->get(RunConfig{})) continue;
    if (!f->is_axis() && values.size() == 1) {
      j[f->sweep_key] = json_of(values[0]);  // one value per sweep
      continue;
    }
    j[f->sweep_key] = nlohmann::ordered_json::array();
    for (const FieldValue& v : values) j[f->sweep_key].push_back(json_of(v));
  }
  return j.dump(2) + "\n";
}

SweepGrid sweep_grid_from_json(const std::string& text) {
  SweepGrid g;
  try {
    const auto j = nlohmann::json::parse(text);
    for (const Field* f : sweep_order()) {
      if (!j.contains(f->sweep_key)) {
        if (f->absent_means_default) continue;  // a folder made before the field existed: its default
        throw Error("sweep.json: missing field \"" + f->sweep_key + "\"");
      }
      const auto& item = j.at(f->sweep_key);
      std::vector<FieldValue> values;
      if (item.is_array())
        for (const auto& v : item) values.push_back(field_value_from_json(*f, v));
      else if (!f->is_axis())
        values.push_back(field_value_from_json(*f, item));
      else
        throw Error("sweep.json: \"" + f->sweep_key + "\" must be a list");
      for (const FieldValue& v : values) {
        const std::string problem = f->problem(v);
        if (!problem.empty()) throw FieldError(f->key, problem);
      }
      f->set_grid_values(g, values);
    }
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
