#pragma once
// What every PyTorch parity test shares: a fixture folder of .npy files written in float64 by a
// tools/*_fixtures.py script, and an elementwise comparison that shows the worst entry on failure.
// The tests never need torch: the fixtures are committed.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <xtensor/xnpy.hpp>

#include "helpers.hpp"

namespace tapegrad::parity {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-10;  // float64 summation-order noise is ~1e-15
constexpr double kAtol = 1e-12;  // floor for entries that are (near) zero

// One case's directory of .npy files: TAPEGRAD_FIXTURES_DIR/<group>/<name>.
class Fixture {
 public:
  explicit Fixture(const std::string& name, const std::string& group = "layers")
      : dir_(fs::path(TAPEGRAD_FIXTURES_DIR) / group / name) {
    INFO("fixture directory " << dir_.string() << " (regenerate with the script its README names)");
    REQUIRE(fs::is_directory(dir_));
  }

  Array load(const std::string& stem) const {
    const fs::path path = dir_ / (stem + ".npy");
    INFO("fixture file " << path.string());
    REQUIRE(fs::is_regular_file(path));
    return xt::load_npy<double>(path.string());
  }

  // The keys of the files "<prefix><key>.npy", sorted: prefix "param." gives the parameter names.
  std::vector<std::string> keys(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string file = entry.path().filename().string();
      if (file.rfind(prefix, 0) == 0 && entry.path().extension() == ".npy")
        out.push_back(file.substr(prefix.size(), file.size() - prefix.size() - 4));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path dir_;
};

// got ≈ want to rtol relative with an atol floor, elementwise; on failure shows the worst entry.
inline void check_close(const std::string& what, const Array& got, const Array& want, double rtol = kRtol,
                        double atol = kAtol) {
  INFO(what << ": tapegrad " << shape_str(got.shape()) << ", PyTorch " << shape_str(want.shape()));
  REQUIRE(got.shape() == want.shape());
  std::size_t worst = 0;
  double worst_excess = -1.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double excess = std::abs(got.data()[i] - want.data()[i]) / (atol + rtol * std::abs(want.data()[i]));
    if (!(excess <= worst_excess)) worst_excess = excess, worst = i;  // also catches NaN
  }
  INFO("worst flat index " << worst << ": tapegrad " << got.data()[worst] << ", PyTorch " << want.data()[worst]
                           << " (error / tolerance = " << worst_excess << ")");
  CHECK(testing::allclose(got, want, rtol, atol));
}

}  // namespace tapegrad::parity
