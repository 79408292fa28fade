// The lab's Transformer (--arch transformer): one training step, and one evaluation forward
// (under no_grad, as the lab evaluates), at the sizes of issue 29 and of --preset transformer.
// bench/compare_torch.py times the same in PyTorch (transformer_step).
#include <benchmark/benchmark.h>

#include "tapegrad/nn/transformer_lm.hpp"
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

// Generation with and without the KV cache (nn::TransformerLM::generate, greedy): a LLaMA-style model (d 64,
// 4 heads, 2 key/value heads, RoPE, RMSNorm, SwiGLU, 4 layers, vocabulary 64), a 16-token prompt, 64 new tokens.
// Arg: 1 = with the cache. Counter tokens_per_s: new tokens per second of CPU time.
void BM_Generate(benchmark::State& state) {
  tapegrad::Generator gen(0);
  tapegrad::nn::TransformerLMOptions o;
  o.vocab_size = 64;
  o.d = 64;
  o.heads = 4;
  o.num_layers = 4;
  o.block.num_kv_heads = 2;
  o.block.rope = tapegrad::RopeStyle::half_split;
  o.block.residual.norm = "rms";
  o.block.activation = "swiglu";
  tapegrad::nn::TransformerLM lm(o, gen);
  std::vector<std::int64_t> prompt;
  for (std::int64_t t = 0; t < 16; ++t) prompt.push_back((7 * t) % 64);
  const std::size_t new_tokens = 64;
  for (auto _ : state) {
    tapegrad::Generator sampling_gen(1);
    benchmark::DoNotOptimize(lm.generate(prompt, new_tokens, tapegrad::SamplingOptions{0.0, 0, 1.0}, sampling_gen,
                                         state.range(0) == 1));
  }
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * new_tokens),
                                                      benchmark::Counter::kIsRate);
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
BENCHMARK(BM_Generate)->MeasureProcessCPUTime()->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransformerEval_Pre)->MeasureProcessCPUTime()->Args({8, 64, 64, 16})->Unit(benchmark::kMillisecond);

}  // namespace
