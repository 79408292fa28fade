// The lab's evaluations forward their set in chunks (mean_loss, eval_chunks): the loss and every
// row of logits must be bitwise what one forward over the whole set gives, so that chunking changes
// no file the lab writes; and the step-0 evaluation's first chunk, reused as the output-change probe's
// "before", must be bitwise the probe's own forward. With one BLAS thread, as the lab runs (and ctest
// sets OPENBLAS_NUM_THREADS=1): a threaded product splits its rows across threads by their count.
#include <cstring>
#include <numeric>

#include <catch2/catch.hpp>
#include <xtensor/xview.hpp>

#include "lab_helpers.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/ops/loss.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

// The examples [begin, end) of data.
Dataset examples(const Dataset& data, std::size_t begin, std::size_t end) {
  std::vector<std::int64_t> rows(end - begin);
  std::iota(rows.begin(), rows.end(), static_cast<std::int64_t>(begin));
  return gather(data, rows);
}

bool same_bits(const Array& a, const double* b, std::size_t n) {
  return a.size() == n && (n == 0 || std::memcmp(a.data(), b, n * sizeof(double)) == 0);
}

// A transformer of width 16 over sequences of 16 tokens (a chunk of 64 sequences is 1024 rows).
RunConfig chunk_transformer(nn::Placement placement, NormKind norm) {
  RunConfig c = testing::tiny_run(placement, 2);
  c.arch = Arch::transformer;
  c.d = 16;
  c.heads = 2;
  c.seq_len = 16;
  c.norm = norm;
  c.train_size = 64;
  c.eval_size = 200;  // chunks of 64: 64, 64, then 72 (the remainder of 8 joins the last chunk)
  return c;
}

RunConfig chunk_ffn() {
  RunConfig c = testing::tiny_run(nn::Placement::pre, 2);
  c.d = 16;
  c.train_size = 64;
  c.eval_size = 2100;  // chunks of 1024: 1024, then 1076 (the remainder of 52 joins the last chunk)
  return c;
}

// Chunked against whole: the loss, every chunk's logits, and the probe's output against the first chunk.
void check_chunked_is_whole(const RunConfig& c) {
  const TaskData task = make_task(c);
  const Dataset& data = task.eval;
  Generator gen(init_seed(c));
  DepthModel model(c, gen);
  model.train();  // mean_loss switches to eval mode and back; BatchNorm then uses its running statistics
  Array whole;
  double whole_loss = 0;
  {
    no_grad guard;
    model.eval();
    const Tensor logits = model(Tensor(data.x));
    whole = logits.value();
    whole_loss = cross_entropy(logits, data.y).item();
    model.train();
  }
  const std::size_t chunk = eval_chunk_examples(data, c.batch);
  const Ranges ranges = eval_chunks(data.size(), chunk);
  INFO("chunks of " << chunk << " examples over " << data.size() << ": " << ranges.size() << " chunks");
  REQUIRE(ranges.size() >= 2);
  Array first;
  CHECK(mean_loss(model, data, chunk, &first) == whole_loss);  // bitwise, not approximately
  const std::size_t row_values = whole.size() / data.size();  // logits per example
  CHECK(same_bits(first, whole.data(), ranges.front().second * row_values));
  {
    no_grad guard;
    model.eval();
    for (const auto& [begin, end] : ranges) {
      INFO("chunk [" << begin << ", " << end << ")");
      CHECK(same_bits(model(Tensor(examples(data, begin, end).x)).value(), whole.data() + begin * row_values,
                      (end - begin) * row_values));
    }
    model.train();
  }
  const Array probe = probe_output(model, probe_batch(data, ranges.front().second));
  CHECK(same_bits(probe, first.data(), first.size()));
}

}  // namespace

TEST_CASE("eval_chunks: equal chunks, a short remainder joins the last one", "[lab][eval_chunks]") {
  CHECK(eval_chunks(12, 4) == Ranges{{0, 4}, {4, 8}, {8, 12}});
  CHECK(eval_chunks(10, 4) == Ranges{{0, 4}, {4, 10}});
  CHECK(eval_chunks(7, 4) == Ranges{{0, 7}});  // fewer than 2 chunks' worth: one forward
  CHECK(eval_chunks(4, 4) == Ranges{{0, 4}});
  CHECK(eval_chunks(3, 0) == Ranges{{0, 1}, {1, 2}, {2, 3}});
  CHECK(eval_chunks(0, 4) == Ranges{{0, 0}});  // the empty set: one empty forward, which says what is wrong
}

TEST_CASE("eval_chunk_examples: at least 1024 rows and at least the batch", "[lab][eval_chunks]") {
  Dataset ffn;  // 2000 examples, one label each
  ffn.x = Array::from_shape({2000, 3});
  ffn.y.assign(2000, 0);
  CHECK(eval_chunk_examples(ffn, 64) == 1024);
  CHECK(eval_chunk_examples(ffn, 1500) == 1500);
  Dataset seqs;  // 100 sequences of 16 tokens
  seqs.x = Array::from_shape({100, 16});
  seqs.y.assign(1600, 0);
  CHECK(eval_chunk_examples(seqs, 1) == 64);
  CHECK(eval_chunk_examples(seqs, 64) == 64);
  CHECK(eval_chunk_examples(seqs, 80) == 80);
  Dataset long_seqs;  // 10 sequences of 2000 tokens: one sequence already has 1024 rows
  long_seqs.x = Array::from_shape({10, 2000});
  long_seqs.y.assign(20000, 0);
  CHECK(eval_chunk_examples(long_seqs, 1) == 1);
}

TEST_CASE("evaluation in chunks is bitwise one forward over the whole set", "[lab][eval_chunks]") {
  SECTION("transformer, pre-norm, LayerNorm") { check_chunked_is_whole(chunk_transformer(nn::Placement::pre, NormKind::layer)); }
  SECTION("transformer, post-norm, BatchNorm (running statistics)") {
    check_chunked_is_whole(chunk_transformer(nn::Placement::post, NormKind::batch));
  }
  SECTION("FFN stack, pre-norm") { check_chunked_is_whole(chunk_ffn()); }
  SECTION("transformer inside a bf16 precision_scope (the loss rounded as cross_entropy rounds it)") {
    precision_scope scope(Precision::bf16);
    check_chunked_is_whole(chunk_transformer(nn::Placement::pre, NormKind::layer));
  }
}

// The probe's output before the first update, as train() computed it before evaluations were chunked:
// after step 0's training forward (which moves BatchNorm's running statistics), before the update.
double probe_rms_after_first_forward(const RunConfig& c, const TaskData& task, const Dataset& probe) {
  Generator gen(init_seed(c));
  DepthModel model(c, gen);
  const Dataset batch = gather(task.train, sample_batches(c).front());
  cross_entropy(model(Tensor(batch.x)), batch.y).backward();
  return rms_row_norm(probe_output(model, probe));
}

TEST_CASE("train: the output-change probe's before is the probe's own forward", "[lab][eval_chunks]") {
  // batch 64: the probe (64 sequences, 1024 rows) is the step-0 evaluation's first chunk, reused unless
  // the model has BatchNorm's running statistics; batch 8: it is not (the chunk has 64): its own forward.
  for (const NormKind norm : {NormKind::layer, NormKind::batch})
    for (const std::size_t batch : {std::size_t{64}, std::size_t{8}}) {
      RunConfig c = chunk_transformer(nn::Placement::pre, norm);
      c.steps = 1;
      c.batch = batch;
      INFO("batch " << batch << ", norm " << to_string(norm));
      const TaskData task = make_task(c);
      const Dataset probe = probe_batch(task.eval, c.batch);
      const bool first_chunk =
          eval_chunks(task.eval.size(), eval_chunk_examples(task.eval, c.batch)).front().second == probe.size();
      CHECK(first_chunk == (batch == 64));
      const RunResult r = run_experiment(c);
      CHECK(r.log.first_step.probe_rows == probe.size() * c.seq_len);
      CHECK(r.log.first_step.output_rms == probe_rms_after_first_forward(c, task, probe));  // bitwise
    }
}
