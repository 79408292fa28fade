#pragma once
// "[##########----------] 12/24 runs  0:31 elapsed  ~0:31 left", redrawn in place on stderr.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

namespace tapegrad::lab::cli {

// m:ss
std::string clock_text(double seconds);

class ProgressBar {
 public:
  // disabled: draws nothing (stderr not a terminal). unit: what is counted ("runs", "steps").
  explicit ProgressBar(bool enabled, std::string unit = "runs");
  void update(std::size_t done, std::size_t total);
  double seconds() const;  // since construction

 private:
  bool enabled_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tapegrad::lab::cli
