// (d) peak memory of training steps, and (e) no memory growth over many steps.
// One configuration per process, so that ru_maxrss (the peak resident set size
// the kernel reports for this process) belongs to that configuration alone.
//
//   peak_memory <pre|post> <depth> <batch> <steps>   prints one JSON line
//   peak_memory growth                                10,000 small steps; exit 1 if RSS grew
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "workloads.hpp"

namespace {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The resident set size now (the second field of /proc/self/statm, in pages).
double current_rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

int growth() {
  // Small, so 10,000 steps take seconds: d = 16, L = 4, batch 16.
  bench::TrainStep step(tapegrad::nn::Placement::pre, 4, 16, 16);
  double rss_1000 = 0.0;
  for (int i = 1; i <= 10000; ++i) {
    step.run();
    if (i == 1000) rss_1000 = current_rss_mib();
  }
  const double rss_10000 = current_rss_mib();
  const bool ok = rss_10000 <= rss_1000 + 0.5;  // half a MiB of slack for allocator noise
  std::printf("{\"rss_step_1000_mib\": %.2f, \"rss_step_10000_mib\": %.2f, \"tape_entries\": %zu, \"ok\": %s}\n",
              rss_1000, rss_10000, tapegrad::tape().size(), ok ? "true" : "false");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "growth") return growth();
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <pre|post> <depth> <batch> <steps>\n       %s growth\n", argv[0], argv[0]);
    return 2;
  }
  const auto placement = tapegrad::nn::parse_placement(argv[1]);
  const auto depth = std::stoul(argv[2]), batch = std::stoul(argv[3]);
  const long steps = std::stol(argv[4]);
  const double before_mib = peak_rss_mib();  // the process itself: code, libraries
  bench::TrainStep step(placement, depth, 64, batch);
  step.run();
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < steps; ++i) step.run();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / steps;
  std::printf("{\"placement\": \"%s\", \"depth\": %lu, \"batch\": %lu, \"ms_per_step\": %.3f, "
              "\"peak_rss_mib\": %.2f, \"baseline_rss_mib\": %.2f}\n",
              argv[1], depth, batch, ms, peak_rss_mib(), before_mib);
  return 0;
}
