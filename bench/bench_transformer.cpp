// The lab's Transformer (--arch transformer): one training step, and one evaluation forward
// (under no_grad, as the lab evaluates), at the sizes of issue 29 and of --preset transformer.
// bench/compare_torch.py times the same in PyTorch (transformer_step).
#include <benchmark/benchmark.h>

#include "workloads.hpp"

namespace {

using tapegrad::nn::Placement;

// Args: depth, d, batch, seq_len (4 heads). llama: --preset llama's block (RMSNorm, SwiGLU, RoPE, 2 kv heads).
bench::TransformerStep make_step(const benchmark::State& state, bool llama = false) {
  return bench::TransformerStep(Placement::pre, static_cast<std::size_t>(state.range(0)),
                                static_cast<std::size_t>(state.range(1)), static_cast<std::size_t>(state.range(2)),
                                /*heads=*/4, static_cast<std::size_t>(state.range(3)), llama);
}

void BM_TransformerStep_Pre(benchmark::State& state) {
  bench::TransformerStep step = make_step(state);
  step.run();  // warm-up: Adam's moment buffers are made on the first step
  for (auto _ : state) benchmark::DoNotOptimize(step.run());
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_LlamaStep_Pre(benchmark::State& state) {
  bench::TransformerStep step = make_step(state, /*llama=*/true);
  step.run();
  for (auto _ : state) benchmark::DoNotOptimize(step.run());
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_TransformerEval_Pre(benchmark::State& state) {
  bench::TransformerStep step = make_step(state);
  for (auto _ : state) benchmark::DoNotOptimize(step.evaluate());
}

// Issue 29's sizes: d 64, 4 heads, seq 16, batch 64, L 8 and 24; --preset transformer's: d 32,
// seq 8, batch 16, L 2 / 6 / 12 / 24.
BENCHMARK(BM_TransformerStep_Pre)->MeasureProcessCPUTime()->Args({8, 64, 64, 16})->Args({24, 64, 64, 16})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransformerStep_Pre)->MeasureProcessCPUTime()->Name("BM_TransformerStep_Pre_Preset")
    ->ArgsProduct({{2, 6, 12, 24}, {32}, {16}, {8}})->Unit(benchmark::kMillisecond);
// The same sizes with the LLaMA-style block (bench/llama_vs_torch.sh against compare_torch.py --llama-only).
BENCHMARK(BM_LlamaStep_Pre)->MeasureProcessCPUTime()->Args({8, 64, 64, 16})->Args({24, 64, 64, 16})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LlamaStep_Pre)->MeasureProcessCPUTime()->Name("BM_LlamaStep_Pre_Preset")
    ->ArgsProduct({{2, 6, 12, 24}, {32}, {16}, {8}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransformerEval_Pre)->MeasureProcessCPUTime()->Args({8, 64, 64, 16})->Unit(benchmark::kMillisecond);

}  // namespace
