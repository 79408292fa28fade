#pragma once
// "[##########----------] 12/24 runs  0:31 elapsed  ~0:31 left", redrawn in place on stderr.

#include <chrono>
#include <cstddef>
#include <string>

namespace tapegrad::lab::cli {

// m:ss
std::string clock_text(double seconds);

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);  // disabled: draws nothing (stderr not a terminal)
  void update(std::size_t done, std::size_t total);
  double seconds() const;  // since construction

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tapegrad::lab::cli
