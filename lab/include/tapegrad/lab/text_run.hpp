#pragma once
// The depth sweep on a text task (--task poems|english with --arch transformer): one run of the sweep trains
// train_lm's small GPT (lm_training.hpp) by the lab's rule (Adam, LinearWarmup, no clipping), and its verdict is
// measured against the corpus's count baselines (text_baselines.hpp) rather than against chance:
//   collapsed  the final validation loss is above the unigram baseline's: the model predicts worse than the
//              character frequencies, which a model ignoring its context learns in a few dozen steps (the text
//              task's "chance": what a stack whose blocks carry nothing still reaches through its head's bias);
//   trained    it is below the midpoint of the unigram and bigram baselines: the model has gained at least half of
//              what one character of context gives a count model, so its attention carries something.
// Between the two: "~D". Why the midpoint and not the bigram itself: in the sweep's budget (200 steps at d = 32)
// the models that learn end near the bigram (the poems: 8.5 to 8.7 bits against the bigram's 8.67), so a line
// there would split them by chance, the seeds' spread and the BLAS kernel's last bits (issue 41); the collapsed
// runs end at 9.26 to 9.35. The midpoint (8.92) lies 0.2 bits from both groups, as 0.7·ln K was chosen mid-way
// between the synthetic task's trained and collapsed runs (depth_run.cpp).
// The corpus is the task's default file (text_corpus.hpp), read once per process.

#include <atomic>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/text_corpus.hpp"

namespace tapegrad::lab {

// The task's corpus (read and cleaned once; shared by the sweep's threads).
const TextCorpus& sweep_corpus(Task task);

// The validation cross-entropy, in nats, of the corpus's count models (text_baselines.hpp's bpc times ln 2).
struct TextBaselines {
  double unigram = 0.0, bigram = 0.0;
  double trained_line() const { return 0.5 * (unigram + bigram); }  // the verdict's (above)
};
const TextBaselines& text_baselines(Task task);

// One run of the sweep on config.task: RunResult's log holds the steps (loss in nats) and the evaluations
// (validation loss in nats), eval_loss the final one, train_loss the mean minibatch loss since the evaluation
// before it; log.init and log.first_step stay empty (the diagnostics are the synthetic tasks').
RunResult run_text_experiment(const RunConfig& config, const std::atomic<bool>* stop = nullptr);

}  // namespace tapegrad::lab
