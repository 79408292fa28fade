#include "tapegrad/optim/checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <xtensor/xnpy.hpp>

namespace tapegrad::optim {
namespace fs = std::filesystem;

namespace {

// A parameter name must be a plain file name: no directories, no escaping dir.
void check_name(const std::string& name, std::size_t index) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    throw Error("save_checkpoint: parameter " + std::to_string(index) + " has the name '" + name +
                "', which cannot be a file name (it must be non-empty, not '.' or '..', without '/')");
}

// Write bytes to path via path + ".tmp" and a rename, so that path is never half-written.
void write_atomically(const fs::path& path, const std::string& bytes) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("save_checkpoint: cannot open '" + tmp.string() + "' for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw Error("save_checkpoint: writing '" + tmp.string() + "' failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // atomic on POSIX: replaces any old file in one go
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw Error("save_checkpoint: cannot rename '" + tmp.string() + "' to '" + path.string() + "': " + ec.message());
  }
}

// The array in a float64 .npy file, or an Error saying why not.
Array read_npy(const fs::path& file, const std::string& name, const Tensor& param) {
  const std::string param_str = "'" + name + "' " + shape_str(param.value().shape());
  const std::string which = "load_checkpoint: file '" + file.string() + "' for parameter " + param_str;
  if (!fs::exists(file)) throw Error("load_checkpoint: missing file '" + file.string() + "' for parameter " + param_str);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(which + " cannot be opened");
  Array a;
  try {
    a = xt::load_npy<double>(in);
  } catch (const std::exception& e) {
    throw Error(which + " is not a float64 .npy file (" + e.what() + ")");
  }
  // xt::load_npy does not check that all the data was there.
  if (!in) throw Error(which + " is truncated: it holds fewer values than its header's shape " + shape_str(a.shape()));
  return a;
}

}  // namespace

std::string checkpoint_file(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / (name + ".npy")).string();
}

void save_checkpoint(const std::string& dir, const NamedTensors& named_params) {
  for (std::size_t i = 0; i < named_params.size(); ++i) {
    const auto& [name, t] = named_params[i];
    check_name(name, i);
    if (!t.defined()) throw Error("save_checkpoint: parameter '" + name + "' is an undefined Tensor()");
    for (std::size_t j = 0; j < i; ++j)
      if (named_params[j].first == name)
        throw Error("save_checkpoint: parameters " + std::to_string(j) + " and " + std::to_string(i) +
                    " are both named '" + name + "'; they would overwrite each other's file");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("save_checkpoint: cannot create the directory '" + dir + "': " + ec.message());
  for (const auto& [name, t] : named_params) write_atomically(checkpoint_file(dir, name), xt::dump_npy(t.value()));
}

void load_checkpoint(const std::string& dir, const NamedTensors& named_params) {
  std::vector<Array> loaded;
  loaded.reserve(named_params.size());
  for (const auto& [name, t] : named_params) {
    if (!t.defined()) throw Error("load_checkpoint: parameter '" + name + "' is an undefined Tensor()");
    const std::string file = checkpoint_file(dir, name);
    Array a = read_npy(file, name, t);
    if (a.shape() != t.value().shape())
      throw ShapeError("load_checkpoint: parameter '" + name + "' has shape " + shape_str(t.value().shape()) +
                       " but its file '" + file + "' holds shape " + shape_str(a.shape()));
    loaded.push_back(std::move(a));
  }
  // Everything checked: now change the parameters.
  for (std::size_t i = 0; i < named_params.size(); ++i) {
    Tensor t = named_params[i].second;
    t.mutable_value() = std::move(loaded[i]);
  }
}

}  // namespace tapegrad::optim
