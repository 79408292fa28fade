// The depth sweep on a text task (text_run.hpp): train_lm by the lab's rule (LinearWarmup's learning rates, no
// clipping, a NaN/Inf stops the run) and the verdict against the corpus's unigram and bigram baselines.

#include <cmath>
#include <limits>

#include "helpers.hpp"
#include "tapegrad/lab/lm_training.hpp"
#include "tapegrad/lab/summary.hpp"
#include "tapegrad/lab/text_baselines.hpp"
#include "tapegrad/lab/text_run.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace {

// A corpus a tiny model learns something of in a few steps: a repeated rhyme.
TextCorpus rhyme_corpus() {
  std::vector<std::u32string> records;
  for (int i = 0; i < 40; ++i) records.push_back(i % 2 ? U"the cat sat on the mat\n" : U"a dog ran in the fog\n");
  return make_corpus(records, "rhymes");
}

LmTrainingOptions lab_rule_run(long steps, double lr) {
  LmTrainingOptions o;
  o.lab_rule = true;
  RunConfig& c = o.run;
  c.task = Task::english;
  c.arch = Arch::transformer;
  c.placement = nn::Placement::post;
  c.depth = 2, c.d = 16, c.heads = 2, c.seq_len = 8, c.batch = 4, c.steps = steps, c.lr = lr, c.warmup = 4;
  c.eval_every = 4;
  return o;
}

bool have_english_corpus() {
  try {
    sweep_corpus(Task::english);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST_CASE("train_lm by the lab's rule: LinearWarmup's learning rates, the gradient unclipped", "[lab][text]") {
  const TextCorpus corpus = rhyme_corpus();
  const LmRun run = train_lm(corpus, lab_rule_run(8, 0.5));  // a large lr: the gradient's norm passes 1
  REQUIRE(run.curve.size() == 8);
  bool above_clip = false;
  for (const CurvePoint& p : run.curve) {
    CHECK(p.lr == Approx(0.5 * std::min(1.0, static_cast<double>(p.step + 1) / 4)));  // constant after the warmup
    above_clip |= p.grad_norm > 1.0;
  }
  CHECK(above_clip);  // train_lm's default clip (1) would have cut it: the recorded norm is the unclipped one
  CHECK(run.nonfinite_step == -1);
}

TEST_CASE("train_lm stops at a NaN/Inf loss, as the sweep's runs do", "[lab][text]") {
  const TextCorpus corpus = rhyme_corpus();
  const LmRun run = train_lm(corpus, lab_rule_run(8, 1e300));  // the first update makes the weights overflow
  REQUIRE(run.nonfinite_step >= 1);
  CHECK(run.curve.size() == static_cast<std::size_t>(run.nonfinite_step + 1));  // no step after it
  CHECK(run.steps_done == run.nonfinite_step);
}

TEST_CASE("the text verdict: trained half-way to the bigram baseline, collapsed above the unigram one", "[lab][text]") {
  if (!have_english_corpus()) {
    WARN("the fortunes package is missing: skipped (scripts/deps.sh lab installs it)");
    return;
  }
  RunConfig base;
  base.task = Task::english;
  base.arch = Arch::transformer;
  const TextCorpus& corpus = sweep_corpus(Task::english);
  const double ln2 = std::log(2.0);
  const LossThresholds t = loss_thresholds(base);
  const double unigram = unigram_bpc(corpus.train, corpus.val, corpus.vocab.size()) * ln2;
  const double bigram = bigram_bpc(corpus.train, corpus.val, corpus.vocab.size()) * ln2;
  CHECK(t.trained == Approx(0.5 * (unigram + bigram)));
  CHECK(t.collapsed == Approx(unigram));
  REQUIRE(t.trained < t.collapsed);
  CHECK(verdict_of(t.trained - 1e-9, t) == Verdict::trained);
  CHECK(verdict_of(t.trained + 1e-9, t) == Verdict::between);
  CHECK(verdict_of(t.collapsed + 1e-9, t) == Verdict::failed);
  CHECK(verdict_of(std::numeric_limits<double>::infinity(), t) == Verdict::failed);

  // A sweep's run of the task: its eval loss is the last evaluation's, in nats; failed only above the unigram's.
  RunConfig c = lab_rule_run(6, 1e-2).run;
  const RunResult r = run_text_experiment(c);
  REQUIRE(r.log.evals.size() == 3);  // steps 0, 4, 6
  CHECK(r.eval_loss == r.log.evals.back().loss);
  CHECK(r.failure.failed == (r.eval_loss > t.collapsed));
  CHECK(r.log.curve.size() == 6);
}
