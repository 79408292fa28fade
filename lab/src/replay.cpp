#include "tapegrad/lab/replay.hpp"

#include <cstdint>
#include <filesystem>
#include <sstream>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "tapegrad/lab/files.hpp"
#include "tapegrad/optim/checkpoint.hpp"

namespace tapegrad::lab {
namespace fs = std::filesystem;

namespace {

std::string in_dir(const std::string& dir, const std::string& file) { return (fs::path(dir) / file).string(); }

template <class T>
xt::xarray<T> load(const std::string& path, const char* dtype) {
  std::istringstream in(read_file(path));
  try {
    return xt::load_npy<T>(in);
  } catch (const std::exception& e) {
    throw Error("cannot read '" + path + "' as a .npy file of " + dtype + " (" + e.what() + ")");
  }
}

void expect_shape(const std::string& path, const Shape& got, const Shape& want) {
  if (got != want)
    throw ShapeError("replay: '" + path + "' holds shape " + shape_str(got) + " but config.json implies " +
                     shape_str(want));
}

// y.npy: one label per example, or per position for the sequence task.
Shape label_shape(const RunConfig& c) {
  if (is_transformer(c)) return {c.train_size, c.seq_len};
  return {c.train_size};
}

}  // namespace

RunResult write_replay(const std::string& dir, const RunConfig& config) {
  ensure_writable_directory(dir);
  auto dump = [&](const DepthModel& model, const TaskData& task, const Batches& batches) {
    write_file_atomically(in_dir(dir, "config.json"), to_json(config));
    optim::save_checkpoint(dir, model.named_parameters());
    write_file_atomically(in_dir(dir, "x.npy"), xt::dump_npy(task.train.x));
    xt::xarray<std::int64_t> y = xt::adapt(task.train.y, label_shape(config));
    write_file_atomically(in_dir(dir, "y.npy"), xt::dump_npy(y));
    xt::xarray<std::int64_t> b = xt::zeros<std::int64_t>({batches.size(), config.batch});
    for (std::size_t s = 0; s < batches.size(); ++s)
      for (std::size_t i = 0; i < config.batch; ++i) b(s, i) = batches[s][i];
    write_file_atomically(in_dir(dir, "batches.npy"), xt::dump_npy(b));
  };
  RunResult r = run_experiment(config, nullptr, dump);
  const std::vector<double> losses = r.log.losses();
  write_file_atomically(in_dir(dir, "losses.npy"), xt::dump_npy(Array(xt::adapt(losses, {losses.size()}))));
  return r;
}

Replay read_replay(const std::string& dir) {
  Replay rp;
  rp.config = run_config_from_json(read_file(in_dir(dir, "config.json")));
  const RunConfig& c = rp.config;
  const std::string xp = in_dir(dir, "x.npy"), yp = in_dir(dir, "y.npy"), bp = in_dir(dir, "batches.npy");
  rp.train.x = load<double>(xp, "float64");
  expect_shape(xp, Shape(rp.train.x.shape().begin(), rp.train.x.shape().end()),
               {c.train_size, is_transformer(c) ? c.seq_len : c.d_in});
  const auto y = load<std::int64_t>(yp, "int64");
  expect_shape(yp, Shape(y.shape().begin(), y.shape().end()), label_shape(c));
  rp.train.y.assign(y.begin(), y.end());
  const auto b = load<std::int64_t>(bp, "int64");
  expect_shape(bp, Shape(b.shape().begin(), b.shape().end()), {static_cast<std::size_t>(c.steps), c.batch});
  for (std::size_t s = 0; s < b.shape()[0]; ++s)
    rp.batches.emplace_back(b.begin() + static_cast<std::ptrdiff_t>(s * c.batch),
                            b.begin() + static_cast<std::ptrdiff_t>((s + 1) * c.batch));
  return rp;
}

std::vector<double> replay_losses(const std::string& dir) {
  const Replay rp = read_replay(dir);
  Generator unused(0);  // the weights come from the record
  DepthModel model(rp.config, unused);
  optim::load_checkpoint(dir, model.named_parameters());
  return train(model, rp.train, nullptr, rp.batches, rp.config).losses();
}

std::vector<double> read_npy_vector(const std::string& path) {
  const Array a = load<double>(path, "float64");
  return std::vector<double>(a.begin(), a.end());
}

}  // namespace tapegrad::lab
