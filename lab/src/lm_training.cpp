#include "tapegrad/lab/lm_training.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <xtensor/xbuilder.hpp>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/lab/depth_model.hpp"
#include "tapegrad/lab/text_task.hpp"
#include "tapegrad/ops/loss.hpp"
#include "tapegrad/ops/shape.hpp"
#include "tapegrad/optim/adam.hpp"
#include "tapegrad/optim/checkpoint.hpp"
#include "tapegrad/optim/clip.hpp"
#include "tapegrad/optim/schedule.hpp"

namespace tapegrad::lab {

namespace fs = std::filesystem;

nn::TransformerLMOptions lm_options(const RunConfig& c, std::size_t vocab) {
  if (c.dropout > 0.0)  // the residual dropout is the depth sweep's (DepthModel); the text model has no stream for it
    throw std::invalid_argument("tapegrad-depth poems: --dropout " + format_double(c.dropout) +
                                " is not taken by the text tasks (only the depth sweep's models drop); leave it at 0");
  nn::TransformerLMOptions o;
  o.vocab_size = vocab;
  o.d = c.d;
  o.heads = c.heads;
  o.num_layers = c.depth;
  o.max_positions = c.seq_len;
  o.placement = c.placement;
  o.block = transformer_block_options(c);
  o.block.separate_qkv = true;  // nn::MultiheadAttention in every style: the KV cache needs it
  return o;
}

double stream_bpc(nn::TransformerLM& model, const std::vector<std::int64_t>& stream, std::size_t block) {
  no_grad guard;
  double total = 0.0;  // nats, summed over every label in order
  std::size_t labels = 0;
  for (const TextBatch& b : eval_windows(stream, block)) {
    const Tensor logits = model.forward(Tensor(b.x));
    const long vocab = static_cast<long>(logits.shape()[2]);
    total = cross_entropy_sum(reshape(logits, {static_cast<long>(b.y.size()), vocab}), b.y, total);
    labels += b.y.size();
  }
  return total / static_cast<double>(labels) / std::log(2.0);
}

namespace {

// The checkpoint's state besides the arrays: where the run is, and what it has measured.
struct Progress {
  long step = 0;
  std::vector<long> adam_steps;
  double loss_sum = 0.0;  // the train losses (bits) since the last evaluation
  long loss_count = 0;
  std::vector<LmEval> evals;
};

std::string state_text(const RunConfig& c, std::size_t vocab, const Progress& p) {
  std::ostringstream out;
  out << "run " << run_id(c) << "\nvocab " << vocab << "\nstep " << p.step << "\nrunning " << format_double(p.loss_sum)
      << " " << p.loss_count << "\nadam_steps";
  for (long s : p.adam_steps) out << " " << s;
  out << "\n";
  for (const LmEval& e : p.evals)
    out << "eval " << e.step << " " << format_double(e.val_bpc) << " " << format_double(e.train_bpc) << "\n";
  return out.str();
}

Progress read_state(const std::string& dir, const RunConfig& c, std::size_t vocab) {
  const std::string path = (fs::path(dir) / "state.txt").string();
  std::ifstream in(path);
  if (!in) throw Error("train_lm: --resume: no checkpoint in " + dir + " (" + path + " cannot be read)");
  Progress p;
  std::string run, word;
  std::size_t saved_vocab = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    words >> word;
    if (word == "run") words >> run;
    else if (word == "vocab") words >> saved_vocab;
    else if (word == "step") words >> p.step;
    else if (word == "running") {
      std::string sum;
      words >> sum >> p.loss_count;
      p.loss_sum = std::strtod(sum.c_str(), nullptr);
    } else if (word == "adam_steps") {
      for (long s; words >> s;) p.adam_steps.push_back(s);
    } else if (word == "eval") {
      LmEval e;
      std::string val, train;
      words >> e.step >> val >> train;
      e.val_bpc = std::strtod(val.c_str(), nullptr);
      e.train_bpc = std::strtod(train.c_str(), nullptr);
      p.evals.push_back(e);
    }
  }
  if (run != run_id(c) || saved_vocab != vocab)
    throw Error("train_lm: --resume: the checkpoint in " + dir + " is of run " + run + " (vocabulary " +
                std::to_string(saved_vocab) + "), not of this one, " + run_id(c) + " (vocabulary " +
                std::to_string(vocab) + ")");
  return p;
}

// Adam's moments as named tensors ("<param>.exp_avg", "<param>.exp_avg_sq"), for save/load_checkpoint.
NamedTensors adam_arrays(const NamedTensors& params, std::vector<optim::AdamParamState>& states) {
  NamedTensors out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    out.emplace_back(params[i].first + ".exp_avg", Tensor(states[i].exp_avg));
    out.emplace_back(params[i].first + ".exp_avg_sq", Tensor(states[i].exp_avg_sq));
  }
  return out;
}

void save(const std::string& dir, const RunConfig& c, std::size_t vocab, const nn::TransformerLM& model,
          const optim::Adam& adam, Progress& p) {
  const NamedTensors params = model.named_parameters();
  optim::save_checkpoint((fs::path(dir) / "model").string(), params);
  std::vector<optim::AdamParamState> states;
  p.adam_steps.clear();
  for (std::size_t i = 0; i < params.size(); ++i) {
    states.push_back(adam.state(i));
    if (states.back().step == 0) {  // before the first update: zeros, as Adam makes them
      states.back().exp_avg = xt::zeros_like(params[i].second.value());
      states.back().exp_avg_sq = xt::zeros_like(params[i].second.value());
    }
    p.adam_steps.push_back(states.back().step);
  }
  optim::save_checkpoint((fs::path(dir) / "adam").string(), adam_arrays(params, states));
  const std::string path = (fs::path(dir) / "state.txt").string(), tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << state_text(c, vocab, p);
    if (!out) throw Error("train_lm: cannot write " + tmp);
  }
  fs::rename(tmp, path);  // the state last: a checkpoint is whole once it names its step
}

void load(const std::string& dir, const nn::TransformerLM& model, optim::Adam& adam, const Progress& p) {
  const NamedTensors params = model.named_parameters();
  if (p.adam_steps.size() != params.size())
    throw Error("train_lm: --resume: the checkpoint in " + dir + " has Adam states for " +
                std::to_string(p.adam_steps.size()) + " parameters, the model has " + std::to_string(params.size()));
  std::vector<optim::AdamParamState> states(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    states[i].step = p.adam_steps[i];
    states[i].exp_avg = xt::zeros_like(params[i].second.value());
    states[i].exp_avg_sq = xt::zeros_like(params[i].second.value());
  }
  NamedTensors arrays = adam_arrays(params, states);
  optim::load_checkpoint((fs::path(dir) / "adam").string(), arrays);
  for (std::size_t i = 0; i < params.size(); ++i) {
    states[i].exp_avg = arrays[2 * i].second.value();
    states[i].exp_avg_sq = arrays[2 * i + 1].second.value();
  }
  optim::load_checkpoint((fs::path(dir) / "model").string(), params);
  adam.load_state(std::move(states));
}

}  // namespace

LmRun train_lm(const TextCorpus& corpus, const LmTrainingOptions& options, const LmProgress& progress) {
  RunConfig c = options.run;
  if (c.task == Task::synthetic) throw Error("train_lm: a text task (poems or english) expected, got synthetic");
  c.arch = Arch::transformer;
  c.classes = corpus.vocab.size();
  validate(c);
  if (options.resume && options.checkpoint_dir.empty()) throw Error("train_lm: resume needs a checkpoint folder");
  const auto start_time = std::chrono::steady_clock::now();

  LmRun result;
  Generator init_gen(init_seed(c));
  result.model = std::make_shared<nn::TransformerLM>(lm_options(c, corpus.vocab.size()), init_gen);
  nn::TransformerLM& model = *result.model;
  const std::vector<Tensor> params = model.parameters();
  optim::AdamOptions adam_options;
  adam_options.lr = c.lr;
  optim::Adam adam(params, adam_options);
  const optim::WarmupCosine cosine(c.lr, c.warmup, c.steps, c.lr / 10);
  const optim::LinearWarmup linear(c.lr, c.warmup);

  Progress p;
  if (options.resume) {
    p = read_state(options.checkpoint_dir, c, corpus.vocab.size());
    load(options.checkpoint_dir, model, adam, p);
  }
  const auto checkpoint = [&] {
    if (!options.checkpoint_dir.empty()) save(options.checkpoint_dir, c, corpus.vocab.size(), model, adam, p);
  };
  const auto evaluate = [&](long step) {
    LmEval e;
    e.step = step;
    e.val_bpc = stream_bpc(model, corpus.val, c.seq_len);
    e.train_bpc = p.loss_count ? p.loss_sum / static_cast<double>(p.loss_count) : 0.0;
    p.loss_sum = 0.0;
    p.loss_count = 0;
    p.evals.push_back(e);
    checkpoint();
    return &p.evals.back();
  };

  const std::uint64_t batches = batch_seed(c);
  // A resumed run's evaluation at its step is in the checkpoint already.
  bool evaluated = options.resume && !p.evals.empty() && p.evals.back().step == p.step;
  for (long step = p.step;; ++step) {
    p.step = step;
    const LmEval* eval = nullptr;
    if ((step % c.eval_every == 0 || step == c.steps) && !evaluated) eval = evaluate(step);
    evaluated = false;
    if (progress) progress(step, c.steps, eval);
    if (step == c.steps) break;
    if (options.stop_after >= 0 && step == options.stop_after) {
      checkpoint();
      break;
    }
    if (options.stop && options.stop->load()) {
      result.interrupted = true;
      break;
    }
    const double lr = options.lab_rule ? linear.apply(adam, step) : cosine.apply(adam, step);
    adam.zero_grad();
    Generator gen(stable_hash("lm_batch;" + std::to_string(batches) + ";step=" + std::to_string(step)));
    const TextBatch batch = text_batch(corpus.train, c.seq_len, c.batch, gen);
    Tensor loss = cross_entropy(model.forward(Tensor(batch.x)), batch.y, CrossEntropyOptions{});  // (B, S, V) logits
    loss.backward();
    const double grad_norm = options.lab_rule ? optim::grad_norm(params) : optim::clip_grad_norm_(params, options.clip);
    result.curve.push_back({step, loss.item(), grad_norm, lr});
    if (!std::isfinite(loss.item()) || !std::isfinite(grad_norm)) {  // the update would poison every parameter
      result.nonfinite_step = step;
      break;
    }
    adam.step();
    p.loss_sum += loss.item() / std::log(2.0);
    ++p.loss_count;
  }
  result.evals = p.evals;
  result.steps_done = p.step;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return result;
}

}  // namespace tapegrad::lab
