// Checkpoints: bitwise round trip, file names, atomic writes, clear errors.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <xtensor/xnpy.hpp>

#include "helpers.hpp"
#include "optim/optim_test.hpp"

using namespace tapegrad;
using optim::load_checkpoint;
using optim::save_checkpoint;
using testing::message_of;
namespace fs = std::filesystem;

namespace {

// A fresh, empty directory under /tmp, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("tapegrad_ckpt_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string str() const { return path.string(); }
};

NamedTensors model(std::uint64_t seed) {
  return {{"blocks.3.ffn.fc1.weight", Tensor(testing::randn({3, 4}, seed), true)},
          {"blocks.3.ffn.fc1.bias", Tensor(testing::randn({4}, seed + 1), true)},
          {"scale", Tensor(testing::randn({}, seed + 2), true)}};
}

bool bitwise_equal(const Array& a, const Array& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("save then load restores every parameter bitwise", "[optim]") {
  TempDir dir;
  const NamedTensors saved = model(1);
  save_checkpoint(dir.str(), saved);  // creates the directory
  CHECK(fs::exists(dir.path / "blocks.3.ffn.fc1.weight.npy"));
  CHECK(fs::exists(dir.path / "blocks.3.ffn.fc1.bias.npy"));
  CHECK(fs::exists(dir.path / "scale.npy"));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    ++files;
    CHECK(entry.path().extension() == ".npy");  // no .tmp left behind
  }
  CHECK(files == 3);

  NamedTensors loaded = model(100);  // same shapes, other values
  const std::uint64_t version = loaded[0].second.impl().version;
  load_checkpoint(dir.str(), loaded);
  for (std::size_t i = 0; i < saved.size(); ++i) {
    INFO(saved[i].first);
    CHECK(bitwise_equal(loaded[i].second.value(), saved[i].second.value()));
  }
  CHECK(loaded[0].second.impl().version > version);  // an in-place change, like an optimizer step

  // The files are plain float64 .npy, readable by NumPy (and by xt::load_npy).
  const Array direct = xt::load_npy<double>((dir.path / "blocks.3.ffn.fc1.weight.npy").string());
  CHECK(bitwise_equal(direct, saved[0].second.value()));
}

TEST_CASE("saving again replaces the old files", "[optim]") {
  TempDir dir;
  save_checkpoint(dir.str(), model(1));
  const NamedTensors second = model(2);
  save_checkpoint(dir.str(), second);
  NamedTensors loaded = model(3);
  load_checkpoint(dir.str(), loaded);
  CHECK(bitwise_equal(loaded[1].second.value(), second[1].second.value()));
}

TEST_CASE("load_checkpoint: a missing file names the parameter and the file", "[optim]") {
  TempDir dir;
  NamedTensors params = model(1);
  save_checkpoint(dir.str(), params);
  fs::remove(dir.path / "scale.npy");
  const Array before = params[0].second.value();
  const std::string msg = message_of([&] { load_checkpoint(dir.str(), params); });
  CHECK_THAT(msg, Catch::Contains("missing file") && Catch::Contains("scale.npy") &&
                      Catch::Contains("parameter 'scale' ()"));
  CHECK(bitwise_equal(params[0].second.value(), before));  // all or nothing
  CHECK_THAT(message_of([&] { load_checkpoint((dir.path / "nowhere").string(), params); }),
             Catch::Contains("missing file"));
}

TEST_CASE("load_checkpoint: a shape mismatch names parameter, file and both shapes", "[optim]") {
  TempDir dir;
  save_checkpoint(dir.str(), model(1));
  NamedTensors other{{"blocks.3.ffn.fc1.bias", Tensor(testing::randn({4}, 9), true)},
                     {"blocks.3.ffn.fc1.weight", Tensor(testing::randn({4, 3}, 9), true)}};
  const Array bias_before = other[0].second.value();
  CHECK_THROWS_AS(load_checkpoint(dir.str(), other), ShapeError);
  CHECK_THAT(message_of([&] { load_checkpoint(dir.str(), other); }),
             Catch::Contains("parameter 'blocks.3.ffn.fc1.weight' has shape (4, 3)") &&
                 Catch::Contains("blocks.3.ffn.fc1.weight.npy' holds shape (3, 4)"));
  CHECK(bitwise_equal(other[0].second.value(), bias_before));  // the bias, though loadable, is unchanged
}

TEST_CASE("load_checkpoint: files that are not complete float64 .npy are refused", "[optim]") {
  TempDir dir;
  NamedTensors params = model(1);
  save_checkpoint(dir.str(), params);
  const fs::path weight = dir.path / "blocks.3.ffn.fc1.weight.npy";
  SECTION("truncated") {
    fs::resize_file(weight, fs::file_size(weight) - 8);
    CHECK_THAT(message_of([&] { load_checkpoint(dir.str(), params); }),
               Catch::Contains("blocks.3.ffn.fc1.weight.npy") && Catch::Contains("truncated"));
  }
  SECTION("another dtype") {
    xt::dump_npy(weight.string(), xt::xarray<std::int64_t>::from_shape({3, 4}));
    CHECK_THAT(message_of([&] { load_checkpoint(dir.str(), params); }), Catch::Contains("is not a float64 .npy file"));
  }
  SECTION("not .npy at all") {
    std::ofstream(weight) << "hello";
    CHECK_THAT(message_of([&] { load_checkpoint(dir.str(), params); }), Catch::Contains("is not a float64 .npy file"));
  }
}

TEST_CASE("save_checkpoint: unwritable places and bad names are clear errors", "[optim]") {
  TempDir dir;
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "a_file") << "x";
  // A directory cannot be made inside a regular file (this holds even for root).
  CHECK_THAT(message_of([&] { save_checkpoint((dir.path / "a_file" / "ckpt").string(), model(1)); }),
             Catch::Contains("save_checkpoint: cannot create the directory") && Catch::Contains("a_file/ckpt"));
  if (::geteuid() != 0) {  // permissions do not stop root
    fs::create_directories(dir.path / "read_only");
    fs::permissions(dir.path / "read_only", fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THAT(message_of([&] { save_checkpoint((dir.path / "read_only").string(), model(1)); }),
               Catch::Contains("cannot open") && Catch::Contains("for writing"));
    fs::permissions(dir.path / "read_only", fs::perms::owner_all);
  }
  // A file name that is a directory: the rename cannot replace it.
  fs::create_directories(dir.path / "ckpt" / "scale.npy");
  CHECK_THAT(message_of([&] { save_checkpoint((dir.path / "ckpt").string(), model(1)); }),
             Catch::Contains("cannot rename") && Catch::Contains("scale.npy"));
  CHECK_FALSE(fs::exists(dir.path / "ckpt" / "scale.npy.tmp"));

  Tensor t(Array{1.0});
  CHECK_THAT(message_of([&] { save_checkpoint(dir.str(), {{"a/b", t}}); }), Catch::Contains("name 'a/b'"));
  CHECK_THAT(message_of([&] { save_checkpoint(dir.str(), {{"", t}}); }), Catch::Contains("cannot be a file name"));
  CHECK_THAT(message_of([&] { save_checkpoint(dir.str(), {{"..", t}}); }), Catch::Contains("cannot be a file name"));
  CHECK_THAT(message_of([&] { save_checkpoint(dir.str(), {{"w", t}, {"w", t}}); }),
             Catch::Contains("parameters 0 and 1 are both named 'w'"));
}
