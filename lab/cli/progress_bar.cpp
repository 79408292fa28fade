#include "progress_bar.hpp"

#include <cmath>
#include <cstdio>

namespace tapegrad::lab::cli {

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

ProgressBar::ProgressBar(bool enabled, std::string unit)
    : enabled_(enabled), unit_(std::move(unit)), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const double elapsed = seconds();
  const std::size_t width = 24, filled = width * done / total;
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '-');
  const std::string eta =
      done ? "  ~" + clock_text(elapsed / static_cast<double>(done) * static_cast<double>(total - done)) + " left" : "";
  std::fprintf(stderr, "\r[%s] %zu/%zu %s  %s elapsed%s   ", bar.c_str(), done, total, unit_.c_str(), clock_text(elapsed).c_str(),
               eta.c_str());
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

double ProgressBar::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace tapegrad::lab::cli
