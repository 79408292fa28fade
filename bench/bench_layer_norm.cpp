// (b) the fused layer_norm forward+backward on 4096 × 1024, against the memory
// bandwidth of this machine measured in the same run (STREAM-style copy and triad).
#include <benchmark/benchmark.h>

#include <vector>

#include "workloads.hpp"

namespace {

using bench::Array;
using bench::Tensor;

constexpr std::size_t rows = 4096, cols = 1024;

// Bytes the fused kernel must move at the least, one pass each:
//   forward  reads x, writes y          2 · rows·cols · 8
//   backward reads x and dy, writes dx  3 · rows·cols · 8
// (γ, β, dγ, dβ and the per-row statistics are 1024 or 4096 values: ignored.)
constexpr double layer_norm_bytes = 5.0 * rows * cols * sizeof(double);

void BM_LayerNorm_FwdBwd(benchmark::State& state) {
  tapegrad::Generator gen(0);
  Tensor x(gen.randn({rows, cols}), true);
  Tensor weight(gen.randn({cols}), true), bias(gen.randn({cols}), true);
  const Array dy = gen.randn({rows, cols});
  for (auto _ : state) {
    x.zero_grad(), weight.zero_grad(), bias.zero_grad();
    Tensor y = tapegrad::layer_norm(x, {cols}, weight, bias);
    y.backward(dy);
    benchmark::DoNotOptimize(x.grad().data());
  }
  state.counters["GB_per_s"] =
      benchmark::Counter(layer_norm_bytes * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LayerNorm_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

// STREAM on 3 arrays of 4096·1024 doubles (32 MiB each, far beyond the cache).
// Counted as STREAM counts: copy moves 2 arrays (read a, write c), triad 3.
struct Stream {
  std::vector<double> a = std::vector<double>(rows * cols, 1.0), b = std::vector<double>(rows * cols, 2.0),
                      c = std::vector<double>(rows * cols, 0.0);
};

void BM_Stream_Copy(benchmark::State& state) {
  Stream s;
  for (auto _ : state) {
    for (std::size_t i = 0; i < s.a.size(); ++i) s.c[i] = s.a[i];
    benchmark::ClobberMemory();
  }
  state.counters["GB_per_s"] = benchmark::Counter(2.0 * rows * cols * sizeof(double) * state.iterations() / 1e9,
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Stream_Copy)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

void BM_Stream_Triad(benchmark::State& state) {
  Stream s;
  const double q = 3.0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < s.a.size(); ++i) s.a[i] = s.b[i] + q * s.c[i];
    benchmark::ClobberMemory();
  }
  state.counters["GB_per_s"] = benchmark::Counter(3.0 * rows * cols * sizeof(double) * state.iterations() / 1e9,
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Stream_Triad)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

}  // namespace
