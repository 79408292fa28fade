#pragma once
// Training a small GPT on a text task (RunConfig::task poems or english): nn::TransformerLM on the corpus's
// windows (text_task.hpp), scored in bits per character on the validation split.
//
//   model     nn::TransformerLM(vocab = the corpus's characters, d, heads, depth layers, the run's placement),
//             its blocks as the lab's (depth_model.hpp's transformer_block_options: --preset llama's RMSNorm,
//             SwiGLU, RoPE and grouped key/value heads, or the GPT-2-style LayerNorm and learned positions),
//             always with separate q, k, v projections (nn::MultiheadAttention), which the KV cache needs.
//             Weights drawn from Generator(init_seed(run)).
//   batches   step t's windows from Generator(hash of batch_seed(run) and t): a resumed run draws the batches an
//             uninterrupted one draws, with no generator state to save.
//   update    Adam (PyTorch's defaults), lr by WarmupCosine(lr, warmup, steps, lr/10), the gradient clipped to
//             a global norm of `clip` (clip_grad_norm_). The depth sweep's text runs (text_run.hpp) train by the
//             lab's rule instead: LinearWarmup (constant after the warmup) and no clipping (lab_rule), so that
//             their depth stability is compared with the synthetic tasks' under the same optimiser.
//   NaN/Inf   a non-finite loss or gradient stops the run there (LmRun::nonfinite_step), as the sweep's runs stop.
//   eval      every eval_every steps and at the end: the mean cross-entropy over the validation windows
//             (eval_windows), in bits per character (nats / ln 2).
//   checkpoint  at each evaluation (and when stopped early): DIR/model/*.npy (optim::save_checkpoint), DIR/adam/
//             (each parameter's step, exp_avg and exp_avg_sq), DIR/state.txt (the step reached, the run's id and the
//             evaluations so far). resume continues from it to the same bits as a run that never stopped.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/run_config.hpp"
#include "tapegrad/lab/text_corpus.hpp"
#include "tapegrad/nn/transformer_lm.hpp"

namespace tapegrad::lab {

struct LmTrainingOptions {
  RunConfig run;               // task, placement, depth, d, heads, seq_len (the block size), lr, warmup, steps,
                               // batch, seed, eval_every, norm, activation, positions, kv_heads
  double clip = 1.0;           // the gradient's largest global norm
  std::string checkpoint_dir;  // "": no checkpoint
  bool resume = false;         // continue from checkpoint_dir (an Error if it holds none, or another run's)
  long stop_after = -1;        // >= 0: stop after this many steps, checkpointed (an interrupted run, for the tests)
  bool lab_rule = false;       // the depth sweep's schedule: LinearWarmup(lr, warmup), no clipping (clip unused)
  const std::atomic<bool>* stop = nullptr;  // checked before each step: true stops the run (LmRun::interrupted)
};

struct LmEval {
  long step = 0;
  double val_bpc = 0.0;
  double train_bpc = 0.0;  // the mean loss of the steps since the last evaluation (0 at step 0)
};

struct LmRun {
  std::shared_ptr<nn::TransformerLM> model;
  std::vector<LmEval> evals;
  long steps_done = 0;
  double seconds = 0.0;  // wall time of this process's training (a resumed run: since the resume)
  std::vector<CurvePoint> curve;  // every step of this process: minibatch loss (nats), gradient norm, lr
  long nonfinite_step = -1;       // the step whose loss or gradient was NaN/Inf (the run stopped there), else -1
  bool interrupted = false;       // options.stop became true
  double final_val_bpc() const { return evals.empty() ? 0.0 : evals.back().val_bpc; }
};

// The model of a run for a vocabulary of `vocab` characters (weights from gen).
nn::TransformerLMOptions lm_options(const RunConfig& run, std::size_t vocab);
// Validation bits per character of the model on a stream (eval_windows of the run's block size).
double stream_bpc(nn::TransformerLM& model, const std::vector<std::int64_t>& stream, std::size_t block);

// Called after every step (eval: the evaluation made at that step, else null).
using LmProgress = std::function<void(long step, long steps, const LmEval* eval)>;

// Trains on corpus.train, evaluates on corpus.val. An Error for a synthetic task or a bad run (validate()).
LmRun train_lm(const TextCorpus& corpus, const LmTrainingOptions& options, const LmProgress& progress = {});

}  // namespace tapegrad::lab
