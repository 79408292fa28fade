// (e) the fused feed_forward against the same FFN composed from linear, relu and
// linear (three ops): forward + backward of one lab block's FFN, d 64 → 256 → 64,
// batch 64. What the fusion buys, in one run.
#include <benchmark/benchmark.h>

#include "tapegrad/ops/feed_forward.hpp"
#include "workloads.hpp"

namespace {

using bench::Array;
using bench::Tensor;

template <bool fused>
void BM_FFN_FwdBwd(benchmark::State& state) {
  tapegrad::Generator gen(0);
  Tensor x(gen.randn({64, 64}), true);
  Tensor w1(gen.randn({256, 64}), true), b1(gen.randn({256}), true);
  Tensor w2(gen.randn({64, 256}), true), b2(gen.randn({64}), true);
  const Array dy = gen.randn({64, 64});
  for (auto _ : state) {
    for (Tensor* t : {&x, &w1, &b1, &w2, &b2}) t->zero_grad();
    Tensor y = fused ? tapegrad::feed_forward(x, w1, b1, w2, b2) : tapegrad::composed::feed_forward(x, w1, b1, w2, b2);
    y.backward(dy);
    benchmark::DoNotOptimize(x.grad().data());
  }
}
BENCHMARK(BM_FFN_FwdBwd<true>)->Name("BM_FFN_FwdBwd_Fused")->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FFN_FwdBwd<false>)->Name("BM_FFN_FwdBwd_Composed")->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);

}  // namespace
