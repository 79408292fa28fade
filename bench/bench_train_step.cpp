// (a) one training step of the depth-lab model, and (d) how its time grows with depth and batch.
#include <benchmark/benchmark.h>

#include "workloads.hpp"

namespace {

using tapegrad::nn::Placement;

void run_steps(benchmark::State& state, Placement placement) {
  const auto depth = static_cast<std::size_t>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  bench::TrainStep step(placement, depth, /*d=*/64, batch);
  step.run();  // warm-up: Adam's moment buffers are made on the first step
  for (auto _ : state) benchmark::DoNotOptimize(step.run());
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_TrainStep_Pre(benchmark::State& state) { run_steps(state, Placement::pre); }
void BM_TrainStep_Post(benchmark::State& state) { run_steps(state, Placement::post); }

// (a) d = 64, batch 64, L = 16.
BENCHMARK(BM_TrainStep_Pre)->MeasureProcessCPUTime()->Args({16, 64})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainStep_Post)->MeasureProcessCPUTime()->Args({16, 64})->Unit(benchmark::kMillisecond);

// (d) scaling: depth at batch 64, batch at depth 16 (pre-norm).
BENCHMARK(BM_TrainStep_Pre)->MeasureProcessCPUTime()
    ->Name("BM_TrainStep_Pre_Scaling")
    ->ArgsProduct({{2, 4, 8, 32, 64}, {64}})
    ->ArgsProduct({{16}, {16, 256}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
