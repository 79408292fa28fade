// The floor of the lab's evaluations: only the matrix products that one evaluation forward of the
// lab's Transformer makes (pre-norm, 4 heads, FFN d -> 4d -> d), as OpenBLAS calls on buffers that
// stay allocated, with nothing else around them (no LayerNorm, softmax, residual, tape or
// allocation). Against BM_TransformerEval_Pre (the whole forward of the same batch) it says how much
// of an evaluation is the products, and its time per 4096 sequences (the evaluations of a lab run at
// issue 29's size: 1024 at step 0, 1024 at the end, the 2048 of the final training loss) is the least
// those evaluations can cost on one core without evaluating fewer sequences.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

namespace {

// y (rows, out) = x (rows, in) Wᵀ + y, row-major, as linear_forward (beta = 1 onto the bias rows).
void linear_product(const std::vector<double>& x, const std::vector<double>& w, std::vector<double>& y, int rows,
                    int in, int out) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0, x.data(), in, w.data(), in, 1.0, y.data(),
              out);
}

// Args: depth, d, batch (sequences), seq_len, attention (1: with the per-sequence, per-head products
// q kᵀ and p v; 0: the linears alone); 4 heads, 8 classes.
void BM_TransformerEvalProducts(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const int batch = static_cast<int>(state.range(2)), seq = static_cast<int>(state.range(3));
  const bool attention = state.range(4) != 0;
  const int heads = 4, dh = d / heads, classes = 8, rows = batch * seq;
  std::vector<double> x(static_cast<std::size_t>(rows) * 4 * d, 0.01), qkv(static_cast<std::size_t>(rows) * 3 * d, 0.02);
  std::vector<double> y(static_cast<std::size_t>(rows) * 4 * d), w(16 * static_cast<std::size_t>(d) * d, 0.03);
  std::vector<double> scores(static_cast<std::size_t>(seq) * seq);
  for (auto _ : state) {
    for (int l = 0; l < depth; ++l) {
      linear_product(x, w, qkv, rows, d, 3 * d);  // in_proj
      for (int b = 0; attention && b < batch; ++b)
        for (int h = 0; h < heads; ++h) {  // per sequence and head, in place in qkv as the fast kernel reads it
          const double* q = qkv.data() + static_cast<std::size_t>(b) * seq * 3 * d + h * dh;
          cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, seq, seq, dh, 1.0, q, 3 * d, q + d, 3 * d, 0.0,
                      scores.data(), seq);  // q kᵀ
          cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, seq, dh, seq, 1.0, scores.data(), seq, q + 2 * d,
                      3 * d, 0.0, y.data() + static_cast<std::size_t>(b) * seq * d + h * dh, d);  // p v
        }
      linear_product(x, w, y, rows, d, d);      // out_proj
      linear_product(x, w, y, rows, d, 4 * d);  // fc1
      linear_product(x, w, y, rows, 4 * d, d);  // fc2
    }
    linear_product(x, w, y, rows, d, classes);  // head
    benchmark::DoNotOptimize(y.data());
  }
  // multiply-adds per token: 12 d² for the block's linears, 2 S d for attention; d · classes for the head
  const double flop = 2.0 * rows * (depth * (12.0 * d * d + (attention ? 2.0 * seq * d : 0.0)) + static_cast<double>(d) * classes);
  state.counters["GFLOP"] = flop / 1e9;
  state.counters["GFLOP_per_s"] = benchmark::Counter(flop / 1e9 * static_cast<double>(state.iterations()),
                                                     benchmark::Counter::kIsRate);
  state.counters["s_per_4096_seqs"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * batch / 4096.0, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Issue 29's size, one evaluation chunk (64 sequences of 16 tokens, as lab/src/depth_run.cpp forwards them).
BENCHMARK(BM_TransformerEvalProducts)->MeasureProcessCPUTime()->Args({8, 64, 64, 16, 1})->Args({8, 64, 64, 16, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace
