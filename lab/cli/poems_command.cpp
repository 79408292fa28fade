// tapegrad-depth poems: trains a small GPT on a text task (the Tang poems by default, lm_training.hpp), reports its
// validation bits per character against the unigram and bigram baselines, then writes text from a prompt through
// the KV cache (text_generation.hpp). Files in --out: summary.txt (what it prints at the end), sample.txt (the
// text), checkpoint/ (--resume continues from it).

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "exit_status.hpp"
#include "progress_bar.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/lab/lm_training.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/text_baselines.hpp"
#include "tapegrad/lab/text_generation.hpp"

namespace tapegrad::lab::cli {

namespace {

namespace fs = std::filesystem;

struct PoemsLine {
  std::string task = "poems", corpus, preset = "llama", placement = "pre", out = "results/poems", prompt;
  LmTrainingOptions training;
  std::size_t chars = 200;
  SamplingOptions sampling{0.8, 0, 0.9};
  std::uint64_t sample_seed = 0;
};

// The model of a preset: llama (Pre-RMSNorm, SwiGLU, RoPE, 2 key/value groups) or gpt2 (Pre-LayerNorm, GELU,
// learned positions, multi-head).
void apply_style(const std::string& preset, RunConfig& c) {
  const bool llama = preset == "llama";
  c.norm = llama ? NormKind::rms : NormKind::layer;
  c.activation = llama ? Activation::swiglu : Activation::gelu;
  c.positions = llama ? Positions::rope : Positions::learned;
  c.kv_heads = llama ? 2 : 0;
}

std::string fixed(double x, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// Tokens per second of writing `count` characters, with or without the cache (the same seed: the same text).
double tokens_per_second(nn::TransformerLM& model, const std::vector<std::int64_t>& prompt, const PoemsLine& o,
                         bool use_cache, std::vector<std::int64_t>* ids) {
  Generator gen(o.sample_seed);
  const auto start = std::chrono::steady_clock::now();
  *ids = generate_ids(model, prompt, o.chars, o.training.run.seq_len, o.sampling, gen, use_cache);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(o.chars) / seconds;
}

}  // namespace

int run_poems_command(int argc, char** argv) {
  PoemsLine o;
  RunConfig& c = o.training.run;
  c.arch = Arch::transformer;
  c.depth = 4, c.d = 64, c.heads = 4, c.seq_len = 64, c.batch = 16, c.steps = 300, c.lr = 3e-3, c.warmup = 30;
  c.eval_every = 50;
  CLI::App app{"tapegrad-depth poems: train a small GPT on the Tang poems (or English fortunes) and write with it"};
  app.add_option("--task", o.task, "poems (fortunes-zh's tang300) or english (the fortunes package)")
      ->check(CLI::IsMember({"poems", "english"}));
  app.add_option("--corpus", o.corpus, "The fortune file to read (default: the task's)");
  app.add_option("--preset", o.preset, "The block: llama (Pre-RMSNorm, SwiGLU, RoPE, 2 key/value heads) or gpt2 "
                                       "(Pre-LayerNorm, GELU, learned positions)")
      ->check(CLI::IsMember({"llama", "gpt2"}));
  app.add_option("--placement", o.placement, "The norm placement: post, pre, deepnorm, rezero, sandwich, none");
  app.add_option("--depth", c.depth, "Transformer blocks");
  app.add_option("-d,--width", c.d, "Model width");
  app.add_option("--heads", c.heads, "Attention heads");
  app.add_option("--block", c.seq_len, "Block size: the characters of context");
  app.add_option("--batch", c.batch, "Windows per step");
  app.add_option("--steps", c.steps, "Training steps");
  app.add_option("--lr", c.lr, "Peak learning rate (warmup, then a cosine down to a tenth of it)");
  app.add_option("--warmup", c.warmup, "Warmup steps");
  app.add_option("--seed", c.seed, "Seed of the weights and batches");
  app.add_option("--eval-every", c.eval_every, "Steps between validation evaluations (and checkpoints)");
  app.add_option("--clip", o.training.clip, "Largest global gradient norm");
  app.add_option("-o,--out", o.out, "Output folder (summary.txt, sample.txt, checkpoint/)");
  app.add_flag("--resume", o.training.resume, "Continue from --out's checkpoint");
  app.add_option("--prompt", o.prompt, "The first characters of the text to write (default: 春眠 for poems, "
                                       "'The ' for english)");
  app.add_option("--chars", o.chars, "Characters to write");
  app.add_option("--temperature", o.sampling.temperature, "Sampling temperature (0: greedy)");
  app.add_option("--top-k", o.sampling.top_k, "Keep the k likeliest characters (0: all)");
  app.add_option("--top-p", o.sampling.top_p, "Keep the likeliest characters up to this probability (1: all)");
  app.add_option("--sample-seed", o.sample_seed, "Seed of the sampling");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitDone : kExitBadArguments;
  }
  try {
    c.task = parse_choice<Task>(o.task);
    c.placement = parse_choice<nn::Placement>(o.placement);
    apply_style(o.preset, c);
    if (o.prompt.empty()) o.prompt = c.task == Task::poems ? "春眠" : "The ";
    o.training.checkpoint_dir = (fs::path(o.out) / "checkpoint").string();
    const TextCorpus corpus = load_corpus(c.task, o.corpus);
    const double unigram = unigram_bpc(corpus.train, corpus.val, corpus.vocab.size());
    const double bigram = bigram_bpc(corpus.train, corpus.val, corpus.vocab.size());
    std::cout << "corpus: " << corpus.path << ": " << corpus.records << " records (" << corpus.train_records
              << " train, " << corpus.val_records << " validation), " << corpus.vocab.size() << " characters, "
              << corpus.train.size() << " train and " << corpus.val.size() << " validation\n"
              << "baselines (validation bits per character): unigram " << fixed(unigram) << ", bigram "
              << fixed(bigram) << "\n";
    fs::create_directories(o.out);
    ProgressBar bar(isatty(2) != 0, "steps");
    const std::clock_t cpu_start = std::clock();  // the process's CPU time: the wall time depends on the machine's load
    const LmRun run = train_lm(corpus, o.training, [&](long step, long steps, const LmEval* eval) {
      if (eval) {
        if (isatty(2)) std::cerr << "\r\033[K";
        std::cout << "step " << eval->step << ": validation " << fixed(eval->val_bpc) << " bpc"
                  << (eval->step > 0 ? ", train " + fixed(eval->train_bpc) + " bpc" : std::string()) << std::endl;
      }
      bar.update(static_cast<std::size_t>(step), static_cast<std::size_t>(steps));
    });
    const double val = run.final_val_bpc();
    const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;

    const std::vector<std::int64_t> prompt = corpus.vocab.encode(decode_utf8(o.prompt));
    std::vector<std::int64_t> cached, uncached;
    no_grad guard;
    const double with_cache = tokens_per_second(*run.model, prompt, o, true, &cached);
    const double without_cache = tokens_per_second(*run.model, prompt, o, false, &uncached);
    if (cached != uncached) throw Error("poems: the KV cache changed the sampled text (a bug: it must not)");
    const std::string text = encode_utf8(corpus.vocab.decode(cached));

    std::ostringstream summary;
    summary << "tapegrad-depth poems --task " << o.task << " --preset " << o.preset << " --placement " << o.placement
            << " --depth " << c.depth << " -d " << c.d << " --heads " << c.heads << " --block " << c.seq_len
            << " --batch " << c.batch << " --steps " << c.steps << " --lr " << format_double(c.lr) << " --warmup "
            << c.warmup << " --seed " << c.seed << "\n"
            << "corpus: " << corpus.path << ", " << corpus.records << " records (" << corpus.train_records
            << " train, " << corpus.val_records << " validation), " << corpus.vocab.size() << " distinct characters\n"
            << "validation bits per character:\n"
            << "  unigram (add-one)           " << fixed(unigram) << "\n"
            << "  bigram (unigram-smoothed)   " << fixed(bigram) << "\n"
            << "  model                       " << fixed(val) << "  (" << fixed(bigram - val) << " below the bigram, "
            << fixed(unigram - val) << " below the unigram)\n"
            << "training: " << run.steps_done << " steps in " << std::lround(run.seconds) << " s (" << std::lround(cpu_seconds)
            << " CPU-seconds)\n"
            << "generation: " << o.chars << " characters, " << std::lround(with_cache) << " tok/s with the KV cache, "
            << std::lround(without_cache) << " without\n"
            << "sample (prompt " << o.prompt << ", temperature " << format_double(o.sampling.temperature)
            << ", top-k " << o.sampling.top_k << ", top-p " << format_double(o.sampling.top_p) << ", seed "
            << o.sample_seed << "):\n"
            << text << (text.empty() || text.back() != '\n' ? "\n" : "");
    std::cout << summary.str();
    std::ofstream((fs::path(o.out) / "summary.txt").string()) << summary.str();
    std::ofstream((fs::path(o.out) / "sample.txt").string()) << text << "\n";
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-depth: poems: " << e.what() << "\n";
    return kExitError;
  }
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
