#pragma once
// One run of the depth-stability lab: train a DepthModel on the teacher task (the
// copy-with-offset sequence task for --arch transformer),
// logging what the lab plots, and decide whether it failed.
//
// Step convention: "step t" is the model after t Adam updates. The training
// loss logged at step t is the minibatch loss that the (t+1)-th update descends;
// the eval loss at step t is measured before that update. Evals run at t = 0,
// every eval_every steps, and at t = steps (the final model).
//
// A run FAILED if its training loss or gradient became NaN/Inf (training stops
// there), or its final eval loss is above collapse_threshold(K) = 0.7·ln K: the
// collapse that small Post-Norm stacks show rather than NaN (ln K is the loss of
// predicting the uniform distribution). fail_step is the step of the first
// non-finite value, or for a collapse the first eval step from which the eval
// loss stayed above the threshold up to the end (0 for a run that never learned).

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tapegrad/lab/depth_model.hpp"
#include "tapegrad/lab/diagnostics.hpp"
#include "tapegrad/lab/sequence_task.hpp"
#include "tapegrad/lab/teacher_task.hpp"

namespace tapegrad::lab {

using Batches = std::vector<std::vector<std::int64_t>>;

struct CurvePoint {
  long step;
  double loss;       // minibatch cross-entropy
  double grad_norm;  // global L2 norm of all parameter gradients
  double lr;         // the learning rate of this step's update
};

struct EvalPoint {
  long step;
  double loss;
};


struct TrainLog {
  std::vector<CurvePoint> curve;      // one point per step taken
  std::vector<EvalPoint> evals;       // empty without an eval set
  std::vector<SublayerInitGrad> init;  // per block and output projection, from step 0 (diagnostics.hpp)
  OutputChange first_step;             // what the first update did to the output on the probe batch
  long nonfinite_step = -1;           // first step with a NaN/Inf loss or gradient, else −1
  bool interrupted = false;           // *stop became true; the log is incomplete
  std::vector<double> losses() const;
};

// Called after the update of each step (step t: the model now has t + 1 updates), with that update's lr.
using AfterUpdate = std::function<void(long step, double lr)>;

// Trains `model` in place for batches.size() steps with Adam and LinearWarmup(lr, warmup).
// eval may be null (no evals; the output-change probe then takes the train set's first rows).
// Checks *stop (if given) before each step.
TrainLog train(DepthModel& model, const Dataset& train_set, const Dataset* eval_set, const Batches& batches,
               const RunConfig& config, const std::atomic<bool>* stop = nullptr, const AfterUpdate& after_update = {});

// Mean cross-entropy of the model over a whole dataset (every position of every sequence), without
// recording, in eval mode (a BatchNorm uses its running statistics), then back to training mode.
// The set is forwarded in chunks of `chunk_examples` examples (eval_chunks), its loss summed row by row
// in order across them (cross_entropy_sum): bitwise the loss of one forward over the whole set
// (tests/lab/test_lab_eval_chunks.cpp), with each chunk's activations small enough for the caches.
// Inside a precision_scope the mean is rounded as cross_entropy rounds its value. first_chunk, if
// given, receives the logits of the first chunk.
double mean_loss(DepthModel& model, const Dataset& data, std::size_t chunk_examples, Array* first_chunk = nullptr);
double mean_loss(DepthModel& model, const Dataset& data);  // chunks of eval_chunk_examples(data, 1)

// The examples of one evaluation forward: at least 1024 rows of activations (examples × labels per
// example), where OpenBLAS's products give every row bitwise the value it has in a product over the
// whole set (below ~1200 output values it takes its small-matrix kernels, which sum in another order),
// and at least `at_least` examples (train() passes the batch size, so the first chunk of an evaluation
// is the output-change probe itself).
std::size_t eval_chunk_examples(const Dataset& data, std::size_t at_least);

// [begin, end) example ranges of chunk_examples each; a remainder shorter than chunk_examples joins the
// last chunk (so that no chunk is small), and a set of fewer than 2 · chunk_examples is one chunk
// (the empty set too: one empty chunk, whose forward says what is wrong).
std::vector<std::pair<std::size_t, std::size_t>> eval_chunks(std::size_t examples, std::size_t chunk_examples);

double collapse_threshold(std::size_t classes);  // 0.7·ln K

struct Failure {
  bool failed = false;
  long step = -1;      // see the header comment; −1 if not failed
  std::string reason;  // "nonfinite", "collapse" or ""
};
Failure classify(const TrainLog& log, double final_eval_loss, std::size_t classes);
// The same with the collapse threshold given (the text tasks': text_run.hpp).
Failure classify_above(const TrainLog& log, double final_eval_loss, double collapse_above);

struct RunResult {
  RunConfig config;
  TrainLog log;
  double train_loss = 0, eval_loss = 0;  // of the final model over the whole train / eval set
  Failure failure;
};

// The run's train and eval sets: the teacher task's, or the sequence task's for --arch transformer.
struct TaskData {
  Dataset train, eval;
};
TaskData make_task(const RunConfig& config);

// Called once the task, the initial model and the batches exist, before training (for replay dumps).
using BeforeTraining = std::function<void(const DepthModel&, const TaskData&, const Batches&)>;

// The whole reference run: task, model (Generator(init_seed)), batches, training, final losses, verdict.
RunResult run_experiment(const RunConfig& config, const std::atomic<bool>* stop = nullptr,
                         const BeforeTraining& before_training = {});

}  // namespace tapegrad::lab
