#include "tapegrad/lab/results_store.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "tapegrad/lab/files.hpp"
#include "tapegrad/lab/run_fields.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

std::string config_header() { return "run,placement,depth,d,lr,warmup,seed" + setting_columns_header(); }

// config_header() calls the field table's function-local statics, so these may be made in any order.
const std::string kRunsHeader =
    config_header() + ",steps,batch,train_loss,eval_loss,failed,fail_step,fail_reason\n";
const std::string kCurvesHeader = config_header() + ",step,loss,grad_norm,step_lr,eval_loss\n";
const std::string kInitGradsHeader = config_header() + ",block,sublayer,weight_grad_norm,hidden_norm\n";
const std::string kOutputChangeHeader = config_header() + ",probe_rows,step_lr,output_rms,output_change\n";

namespace {

constexpr const char* kRunFile = "run.csv";
constexpr const char* kCurvesFile = "curves.csv";
constexpr const char* kInitFile = "init_grads.csv";
constexpr const char* kOutputChangeFile = "output_change.csv";
constexpr const char* kManifestFile = "manifest.txt";
constexpr const char* kTmpPrefix = ".tmp-";
const char* const kRowFiles[] = {kRunFile, kCurvesFile, kInitFile, kOutputChangeFile};
constexpr std::size_t kRowFileCount = sizeof kRowFiles / sizeof kRowFiles[0];

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!line.empty() && line.back() == sep) parts.emplace_back();
  return parts;
}

// The number of columns of a run.csv row, as kRunsHeader has them.
std::size_t run_columns() {
  return static_cast<std::size_t>(std::count(kRunsHeader.begin(), kRunsHeader.end(), ',')) + 1;
}

std::size_t count_rows(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string hex(std::uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

// One line per file: "<name> <rows> <checksum>".
std::string manifest_line(const std::string& name, const std::string& content) {
  return name + ' ' + std::to_string(count_rows(content)) + ' ' + hex(stable_hash(content)) + '\n';
}

// What is wrong with a file against its manifest line "<name> <rows> <checksum>"; "" if nothing.
std::string mismatch(const std::string& name, const std::string& manifest_entry, const std::string& content) {
  if (manifest_entry + '\n' == manifest_line(name, content)) return "";
  std::istringstream fields(manifest_entry);
  std::string listed;
  std::size_t rows = 0;
  fields >> listed >> rows;
  if (listed != name) return std::string(kManifestFile) + " is damaged (expected a line for " + name + ")";
  if (rows != count_rows(content))
    return name + ": " + std::to_string(count_rows(content)) + " rows, the manifest says " + std::to_string(rows);
  return name + ": its checksum does not match the manifest (changed since it was written)";
}

// A number of run.csv, or an error naming the file, line and column.
double number_field(const std::string& text, const std::string& file, const char* column) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size())
    throw Error(file + ":1: column " + column + ": '" + text + "' is not a number (damaged run folder?)");
  return x;
}

}  // namespace

std::string config_columns(const RunConfig& c) {
  std::ostringstream s;
  s << run_id(c) << ',' << nn::to_string(c.placement) << ',' << c.depth << ',' << c.d << ',' << format_double(c.lr)
    << ',' << c.warmup << ',' << c.seed;
  for (const Field* f : setting_columns()) s << ',' << setting_column_text(*f, c);
  return s.str();
}

std::string run_row(const RunResult& r) {
  std::ostringstream s;
  s << config_columns(r.config) << ',' << r.config.steps << ',' << r.config.batch << ','
    << format_double(r.train_loss) << ',' << format_double(r.eval_loss) << ',' << (r.failure.failed ? 1 : 0) << ','
    << r.failure.step << ',' << r.failure.reason << '\n';
  return s.str();
}

std::string curve_rows(const RunResult& r) {
  const std::string prefix = config_columns(r.config);
  std::ostringstream s;
  std::size_t e = 0;  // evals are sorted by step, as the curve is
  for (const CurvePoint& p : r.log.curve) {
    while (e < r.log.evals.size() && r.log.evals[e].step < p.step) ++e;
    const bool has_eval = e < r.log.evals.size() && r.log.evals[e].step == p.step;
    s << prefix << ',' << p.step << ',' << format_double(p.loss) << ',' << format_double(p.grad_norm) << ','
      << format_double(p.lr) << ',' << (has_eval ? format_double(r.log.evals[e].loss) : "") << '\n';
  }
  return s.str();
}

std::string init_grad_rows(const RunResult& r) {
  const std::string prefix = config_columns(r.config);
  std::ostringstream s;
  for (const SublayerInitGrad& b : r.log.init)
    s << prefix << ',' << b.block << ',' << b.sublayer << ',' << format_double(b.weight_grad_norm) << ','
      << format_double(b.hidden_norm) << '\n';
  return s.str();
}

std::string output_change_row(const RunResult& r) {
  const OutputChange& o = r.log.first_step;
  return config_columns(r.config) + ',' + std::to_string(o.probe_rows) + ',' + format_double(o.step_lr) + ',' +
         format_double(o.output_rms) + ',' + format_double(o.output_change) + '\n';
}

std::string runs_dir(const std::string& out) { return (fs::path(out) / "runs").string(); }
std::string run_dir(const std::string& out, const RunConfig& c) { return (fs::path(runs_dir(out)) / run_id(c)).string(); }
RunCheck check_run(const std::string& out, const RunConfig& c) {
  using State = RunCheck::State;
  const fs::path dir = run_dir(out, c);
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  const auto damaged = [](const std::string& problem) { return RunCheck{State::damaged, problem}; };
  if (!fs::exists(dir / kManifestFile, ec))
    return damaged(std::string(kManifestFile) + " is missing (an unfinished run, or one written before manifests)");
  try {
    std::istringstream manifest(read_file((dir / kManifestFile).string()));
    std::string line;
    for (const char* name : kRowFiles) {
      if (!std::getline(manifest, line))
        return damaged(std::string(kManifestFile) + " lists no " + name + " (written by an older tapegrad-depth?)");
      if (!fs::exists(dir / name, ec)) return damaged(std::string(name) + " is missing");
      const std::string content = read_file((dir / name).string());
      const std::string problem = mismatch(name, line, content);
      if (!problem.empty()) return damaged(problem);
      // A folder of a version with fewer setting columns is whole but not assembled with today's rows.
      const std::string first = content.substr(0, content.find('\n'));
      if (name == std::string(kRunFile) && split(first, ',').size() != run_columns())
        return damaged(std::string(kRunFile) + ": " + std::to_string(split(first, ',').size()) +
                       " columns, this version writes " + std::to_string(run_columns()) +
                       " (written by an older tapegrad-depth?)");
    }
  } catch (const Error& e) {
    return damaged(e.what());
  }
  return {State::finished, ""};
}

bool run_finished(const std::string& out, const RunConfig& c) {
  return check_run(out, c).state == RunCheck::State::finished;
}

void save_run(const std::string& out, const RunResult& r) {
  const fs::path final_dir = run_dir(out, r.config);
  const fs::path tmp = fs::path(runs_dir(out)) / (kTmpPrefix + run_id(r.config));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw Error("cannot create '" + tmp.string() + "': " + ec.message());
  const std::string rows[] = {run_row(r), curve_rows(r), init_grad_rows(r), output_change_row(r)};  // kRowFiles' order
  static_assert(sizeof rows / sizeof rows[0] == kRowFileCount, "one row text per file");
  std::string manifest;
  for (std::size_t i = 0; i < kRowFileCount; ++i) {
    write_file_atomically((tmp / kRowFiles[i]).string(), rows[i]);
    manifest += manifest_line(kRowFiles[i], rows[i]);
  }
  write_file_atomically((tmp / kManifestFile).string(), manifest);
  fs::remove_all(final_dir, ec);
  fs::rename(tmp, final_dir, ec);  // one step: the run appears complete or not at all
  if (ec) throw Error("cannot rename '" + tmp.string() + "' to '" + final_dir.string() + "': " + ec.message());
  sync_directory(runs_dir(out));
}

void remove_partial_runs(const std::string& out) {
  if (!fs::is_directory(runs_dir(out))) return;
  for (const auto& entry : fs::directory_iterator(runs_dir(out)))
    if (entry.path().filename().string().rfind(kTmpPrefix, 0) == 0) fs::remove_all(entry.path());
}

std::size_t count_runs(const std::string& out) {
  std::size_t runs = 0;
  std::error_code ec;
  if (fs::is_directory(runs_dir(out), ec))
    for (const auto& entry : fs::directory_iterator(runs_dir(out), ec))
      if (entry.path().filename().string().rfind(kTmpPrefix, 0) != 0) ++runs;
  return runs;
}

std::size_t remove_all_runs(const std::string& out) {
  const std::size_t runs = count_runs(out);
  fs::remove_all(runs_dir(out));
  return runs;
}

Assembly assemble(const std::string& out, const std::vector<RunConfig>& runs) {
  Assembly a;
  std::string runs_csv = kRunsHeader, curves_csv = kCurvesHeader, init_csv = kInitGradsHeader,
              change_csv = kOutputChangeHeader;
  for (const RunConfig& c : runs) {
    if (!run_finished(out, c)) {
      ++a.missing;
      continue;
    }
    const fs::path dir = run_dir(out, c);
    const std::string row = read_file((dir / kRunFile).string());
    runs_csv += row;
    curves_csv += read_file((dir / kCurvesFile).string());
    init_csv += read_file((dir / kInitFile).string());
    change_csv += read_file((dir / kOutputChangeFile).string());
    // kRunsHeader's columns: the config's, then steps,batch,train_loss,eval_loss,failed,fail_step,fail_reason
    const std::string file = (dir / kRunFile).string();
    const auto f = split(row.substr(0, row.find('\n')), ',');
    if (f.size() != run_columns() || f[0] != run_id(c))
      throw Error(file + ":1: not a run row of " + run_id(c) + " (damaged run folder?)");
    const std::size_t n = f.size();
    const double fail_step = number_field(f[n - 2], file, "fail_step");
    a.outcomes.push_back({c, number_field(f[n - 5], file, "train_loss"), number_field(f[n - 4], file, "eval_loss"),
                          f[n - 3] == "1", static_cast<long>(fail_step), f[n - 1]});
  }
  write_file_atomically((fs::path(out) / "runs.csv").string(), runs_csv);
  write_file_atomically((fs::path(out) / "curves.csv").string(), curves_csv);
  write_file_atomically((fs::path(out) / "init_grads.csv").string(), init_csv);
  write_file_atomically((fs::path(out) / "output_change.csv").string(), change_csv);
  return a;
}

}  // namespace tapegrad::lab
