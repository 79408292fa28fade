#pragma once
// The depth sweep on a text task (--task poems|english with --arch transformer): one run of the sweep trains
// train_lm's small GPT (lm_training.hpp) by the lab's rule (Adam, LinearWarmup, no clipping), and its verdict is
// measured against the corpus's count baselines (text_baselines.hpp) rather than against chance:
//   collapsed  the final validation loss is above the unigram baseline's: the model predicts worse than the
//              character frequencies, which a model ignoring its context learns in a few dozen steps (the text
//              task's "chance": what a stack whose blocks carry nothing still reaches through its head's bias);
//   trained    it is below the bigram baseline's: the model predicts better than the best count model of one
//              character of context, so its attention carries something a frequency table does not.
// Between the two a run learned the frequencies and some context but not more than a bigram table: "~D".
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
};
const TextBaselines& text_baselines(Task task);

// One run of the sweep on config.task: RunResult's log holds the steps (loss in nats) and the evaluations
// (validation loss in nats), eval_loss the final one, train_loss the mean minibatch loss since the evaluation
// before it; log.init and log.first_step stay empty (the diagnostics are the synthetic tasks').
RunResult run_text_experiment(const RunConfig& config, const std::atomic<bool>* stop = nullptr);

}  // namespace tapegrad::lab
