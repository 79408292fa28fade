// (c) what recording and replaying one small op costs: add of two 4-element
// tensors that require grad, so the arithmetic is nothing and the bookkeeping
// (output tensor, tape entry, backward closure, gradient accumulation) is all.
#include <benchmark/benchmark.h>

#include "workloads.hpp"

namespace {

using bench::Array;
using bench::Tensor;

constexpr int ops_per_iteration = 100;  // a chain, so backward visits every entry

void BM_SmallOp_Forward(benchmark::State& state) {
  Tensor a(Array{1.0, 2.0, 3.0, 4.0}, true), b(Array{0.5, 0.5, 0.5, 0.5}, true);
  for (auto _ : state) {
    Tensor h = a;
    for (int i = 0; i < ops_per_iteration; ++i) h = tapegrad::add(h, b);
    benchmark::DoNotOptimize(h.value().data());
    tapegrad::tape().clear();  // timed: PyTorch also frees each graph (when h is reassigned)
  }
  state.SetItemsProcessed(state.iterations() * ops_per_iteration);
}
BENCHMARK(BM_SmallOp_Forward)->MeasureProcessCPUTime();

// Forward + backward; the per-op backward cost is this minus the forward.
void BM_SmallOp_ForwardBackward(benchmark::State& state) {
  Tensor a(Array{1.0, 2.0, 3.0, 4.0}, true), b(Array{0.5, 0.5, 0.5, 0.5}, true);
  const Array seed{1.0, 1.0, 1.0, 1.0};
  for (auto _ : state) {
    a.zero_grad(), b.zero_grad();
    Tensor h = a;
    for (int i = 0; i < ops_per_iteration; ++i) h = tapegrad::add(h, b);
    h.backward(seed);
    benchmark::DoNotOptimize(b.grad().data());
  }
  state.SetItemsProcessed(state.iterations() * ops_per_iteration);
}
BENCHMARK(BM_SmallOp_ForwardBackward)->MeasureProcessCPUTime();

}  // namespace
