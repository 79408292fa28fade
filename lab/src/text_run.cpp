#include "tapegrad/lab/text_run.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "tapegrad/lab/lm_training.hpp"
#include "tapegrad/lab/summary.hpp"
#include "tapegrad/lab/text_baselines.hpp"

namespace tapegrad::lab {

namespace {
std::mutex corpus_mutex;
}  // namespace

const TextCorpus& sweep_corpus(Task task) {
  static std::map<Task, std::unique_ptr<const TextCorpus>> loaded;  // never freed: the process's corpora
  std::lock_guard<std::mutex> lock(corpus_mutex);
  auto& slot = loaded[task];
  if (!slot) slot = std::make_unique<const TextCorpus>(load_corpus(task));
  return *slot;
}

const TextBaselines& text_baselines(Task task) {
  static std::map<Task, TextBaselines> made;
  const TextCorpus& corpus = sweep_corpus(task);
  std::lock_guard<std::mutex> lock(corpus_mutex);
  const auto found = made.find(task);
  if (found != made.end()) return found->second;
  const double ln2 = std::log(2.0), vocab = static_cast<double>(corpus.vocab.size());
  TextBaselines b;
  b.unigram = unigram_bpc(corpus.train, corpus.val, static_cast<std::size_t>(vocab)) * ln2;
  b.bigram = bigram_bpc(corpus.train, corpus.val, static_cast<std::size_t>(vocab)) * ln2;
  return made.emplace(task, b).first->second;
}

RunResult run_text_experiment(const RunConfig& c, const std::atomic<bool>* stop) {
  if (!is_transformer(c)) throw Error("the text task " + to_string(c.task) + " trains --arch transformer only");
  LmTrainingOptions options;
  options.run = c;
  options.lab_rule = true;
  options.stop = stop;
  const LmRun run = train_lm(sweep_corpus(c.task), options);
  RunResult r;
  r.config = c;
  r.log.interrupted = run.interrupted;
  if (run.interrupted) return r;
  const double ln2 = std::log(2.0), nan = std::numeric_limits<double>::quiet_NaN();
  r.log.curve = run.curve;
  for (const LmEval& e : run.evals) r.log.evals.push_back({e.step, e.val_bpc * ln2});
  r.log.nonfinite_step = run.nonfinite_step;
  const bool finite = run.nonfinite_step < 0;
  r.eval_loss = finite ? run.final_val_bpc() * ln2 : nan;
  r.train_loss = finite ? run.evals.back().train_bpc * ln2 : nan;
  r.failure = classify_above(r.log, r.eval_loss, loss_thresholds(c).collapsed);
  return r;
}

}  // namespace tapegrad::lab
