// The shape ops learners build models from: narrow, transpose, permute, reshape, forward and
// backward through the tape (the kernel the build picks), and their copy kernels, the reference
// (xtensor's views) and the fast loops side by side (src/ops/layout_kernel.hpp), at the sizes of
// attention's layout changes (B 64, S 16, 4 heads of 16) and a 512 × 512 transpose.
#include <benchmark/benchmark.h>

#include <functional>

#include "../src/ops/layout_kernel.hpp"
#include "workloads.hpp"

namespace {

using bench::Array;
using bench::Tensor;
using tapegrad::Shape;

Array filled(const Shape& shape) {
  tapegrad::Generator gen(1);
  return gen.randn(shape);
}

// y = op(x), then y.backward(dy): one forward and one backward through the tape.
void op_forward_backward(benchmark::State& state, const Shape& shape,
                         const std::function<Tensor(const Tensor&)>& op) {
  Tensor x(filled(shape), true, "x");
  const Array dy = op(x).value() * 0.0 + 1.0;
  x.zero_grad();
  for (auto _ : state) {
    op(x).backward(dy);
    benchmark::DoNotOptimize(x.grad().data());
    x.zero_grad();
  }
}

const Shape kPacked{64, 16, 192};   // qkv of a batch: (B, S, 3d)
const Shape kHeads{64, 16, 4, 16};  // (B, S, H, Dh)

void BM_Narrow_FwdBwd(benchmark::State& state) {
  op_forward_backward(state, kPacked, [](const Tensor& x) { return tapegrad::narrow(x, -1, 64, 64); });
}
void BM_Transpose_Heads_FwdBwd(benchmark::State& state) {
  op_forward_backward(state, kHeads, [](const Tensor& x) { return tapegrad::transpose(x, 1, 2); });
}
void BM_Transpose_512x512_FwdBwd(benchmark::State& state) {
  op_forward_backward(state, {512, 512}, [](const Tensor& x) { return tapegrad::transpose(x); });
}
void BM_Permute_FwdBwd(benchmark::State& state) {
  op_forward_backward(state, kHeads, [](const Tensor& x) { return tapegrad::permute(x, {0, 2, 3, 1}); });
}
void BM_Reshape_FwdBwd(benchmark::State& state) {
  op_forward_backward(state, {64, 16, 64}, [](const Tensor& x) { return tapegrad::reshape(x, {64, 16, 4, 16}); });
}
BENCHMARK(BM_Narrow_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Transpose_Heads_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Transpose_512x512_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Permute_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reshape_FwdBwd)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);

// The copy kernels alone, reference against fast (the same arrays: tests/ops/test_fast_layout.cpp).
template <tapegrad::kernels::PermuteCopy* permute_copy>
void BM_PermuteCopy(benchmark::State& state) {
  const Array x = filled(state.range(0) == 0 ? kHeads : Shape{512, 512});
  const std::vector<std::size_t> perm = state.range(0) == 0 ? std::vector<std::size_t>{0, 2, 1, 3}
                                                            : std::vector<std::size_t>{1, 0};
  for (auto _ : state) benchmark::DoNotOptimize(permute_copy(x, perm).data());
}
template <tapegrad::kernels::NarrowCopy* narrow_copy>
void BM_NarrowCopy(benchmark::State& state) {
  const Array x = filled(kPacked);
  for (auto _ : state) benchmark::DoNotOptimize(narrow_copy(x, 2, 64, 64).data());
}
template <tapegrad::kernels::NarrowScatter* narrow_scatter>
void BM_NarrowScatter(benchmark::State& state) {
  const Array slice = filled({64, 16, 64});
  for (auto _ : state) benchmark::DoNotOptimize(narrow_scatter(slice, kPacked, 2, 64).data());
}
namespace ref = tapegrad::kernels::reference;
namespace fast = tapegrad::kernels::fast;
// Arg 0: the head split (64, 16, 4, 16) -> (64, 4, 16, 16); arg 1: a 512 × 512 transpose.
BENCHMARK_TEMPLATE(BM_PermuteCopy, ref::permute_copy)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_PermuteCopy, fast::permute_copy)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_NarrowCopy, ref::narrow_copy)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_NarrowCopy, fast::narrow_copy)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_NarrowScatter, ref::narrow_scatter)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_NarrowScatter, fast::narrow_scatter)->Unit(benchmark::kMicrosecond);

}  // namespace
