// The text tasks (--task poems|english): the corpus's cleaning, vocabulary and split by record, the windows, the
// baselines, resuming a training run from its checkpoint, generation (seeded; the KV cache's tokens equal the full
// forward's argmax path) and the missing-corpus error.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/lab/lm_training.hpp"
#include "tapegrad/lab/text_baselines.hpp"
#include "tapegrad/lab/text_corpus.hpp"
#include "tapegrad/lab/text_generation.hpp"
#include "tapegrad/lab/text_task.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/reduce.hpp"
#include "tapegrad/optim/adam.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace fs = std::filesystem;

namespace {

// Two poems in tang300's format: a green title, a yellow author, the lines; "%" between records.
const std::string kTwoPoems =
    "\x1b[32m《春曉》\x1b[m\n\x1b[33m作者：孟浩然\x1b[m\n春眠不覺曉，處處聞啼鳥。\n夜來風雨聲，花落知多少。\n%\n"
    "\x1b[32m《靜夜思》\x1b[m\n\x1b[33m作者：李白\x1b[m\n床前明月光，\t  \n\n疑是地上霜。\r\n%\n";

// n records "ab..." with record i holding the letter 'a' + i % 26 twice and a newline: a tiny corpus.
std::vector<std::u32string> letter_records(std::size_t n) {
  std::vector<std::u32string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::u32string(2, U'a' + static_cast<char32_t>(i % 26)) + U"\n");
  return out;
}

// A corpus a tiny model learns something of in a few steps: a repeated rhyme.
TextCorpus rhyme_corpus() {
  std::vector<std::u32string> records;
  for (int i = 0; i < 40; ++i) records.push_back(i % 2 ? U"the cat sat on the mat\n" : U"a dog ran in the fog\n");
  return make_corpus(records, "rhymes");
}

LmTrainingOptions tiny_lm(long steps) {
  LmTrainingOptions o;
  RunConfig& c = o.run;
  c.task = Task::english;
  c.arch = Arch::transformer;
  c.depth = 2, c.d = 16, c.heads = 2, c.seq_len = 12, c.batch = 4, c.steps = steps, c.lr = 1e-2, c.warmup = 2;
  c.eval_every = 4;
  c.norm = NormKind::rms, c.activation = Activation::swiglu, c.positions = Positions::rope, c.kv_heads = 1;
  return o;
}

}  // namespace

TEST_CASE("clean_fortunes keeps the title and author without their colours, drops tabs, CRs and blank lines", "[lab][text]") {
  const auto records = clean_fortunes(kTwoPoems);
  REQUIRE(records.size() == 2);
  CHECK(encode_utf8(records[0]) == "《春曉》\n作者：孟浩然\n春眠不覺曉，處處聞啼鳥。\n夜來風雨聲，花落知多少。\n");
  CHECK(encode_utf8(records[1]) == "《靜夜思》\n作者：李白\n床前明月光，\n疑是地上霜。\n");
  // An escape inside an uncoloured line goes, its text stays.
  CHECK(encode_utf8(clean_fortunes("plain \x1b[1mbold\x1b[m text\n%\n")[0]) == "plain bold text\n");
  CHECK(decode_utf8(encode_utf8(U"月光 é 𝄞")) == U"月光 é 𝄞");
  CHECK_THROWS_WITH(decode_utf8("ok\xff"), Catch::Contains("not UTF-8 at byte 2"));
}

TEST_CASE("make_corpus: a sorted vocabulary of every character, one record in 10 for validation", "[lab][text]") {
  const TextCorpus corpus = make_corpus(letter_records(30), "letters");
  CHECK(corpus.records == 30);
  CHECK(corpus.val_records == 3);  // records 9, 19, 29: j, t, d
  CHECK(corpus.train_records == 27);
  CHECK(corpus.vocab.chars == U"\nabcdefghijklmnopqrstuvwxyz");
  CHECK(corpus.vocab.decode(corpus.val) == U"jj\ntt\ndd\n");
  CHECK(corpus.train.size() == 27 * 3);
  // No record is in both splits: the validation letters j, t, d appear in training only from other records.
  const std::u32string train = corpus.vocab.decode(corpus.train);
  CHECK(train.substr(0, 9) == U"aa\nbb\ncc\n");
  CHECK(train.find(U"ii\nkk\n") != std::u32string::npos);  // j's record (9) skipped
  CHECK(corpus.vocab.id(U'a') == 1);
  CHECK_THROWS_WITH(corpus.vocab.id(U'A'), Catch::Contains("not in the corpus's vocabulary"));
  CHECK_THROWS_WITH(make_corpus(letter_records(9), "few"),
                    Catch::Contains("9 records, fewer than the 10"));
}

TEST_CASE("text windows: the next character as the label, batches from the seeded generator", "[lab][text]") {
  const std::vector<std::int64_t> stream{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const TextBatch w = text_window(stream, 3, 4);
  CHECK(w.x == Array{{3, 4, 5, 6}});
  CHECK(w.y == std::vector<std::int64_t>{4, 5, 6, 7});
  CHECK_THROWS_WITH(text_window(stream, 6, 4), Catch::Contains("needs 11 characters"));
  Generator a(7), b(7);
  const TextBatch ba = text_batch(stream, 4, 3, a), bb = text_batch(stream, 4, 3, b);
  CHECK(ba.x == bb.x);
  CHECK(ba.y == bb.y);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t t = 0; t < 4; ++t) CHECK(ba.y[r * 4 + t] == static_cast<std::int64_t>(ba.x(r, t)) + 1);
  // Evaluation: every character but the first is a label once, in order (full windows, then the rest).
  const auto windows = eval_windows(stream, 4, 1);
  std::vector<std::int64_t> labels;
  for (const TextBatch& e : windows) labels.insert(labels.end(), e.y.begin(), e.y.end());
  CHECK(labels == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(windows.size() == 3);  // 4 + 4 labels in two batches of one row, then the 1 left over
}

TEST_CASE("the baselines: add-one unigram and bigram bits per character", "[lab][text]") {
  // Train "abab": a 2, b 2 of 4, V = 3 (c unseen). Val "abc": labels b and c.
  const std::vector<std::int64_t> train{0, 1, 0, 1}, val{0, 1, 2};
  const double p_b = 3.0 / 7.0, p_c = 1.0 / 7.0;
  CHECK(unigram_bpc(train, val, 3) == Approx(-(std::log2(p_b) + std::log2(p_c)) / 2));
  // Bigram, 3 pseudo-counts spread by the unigram: after a, b seen twice of 2 (a's followers): (2 + 3 p_b)/(2 + 3);
  // after b, c never of 1: (0 + 3 p_c)/(1 + 3).
  CHECK(bigram_bpc(train, val, 3) == Approx(-(std::log2((2 + 3 * p_b) / 5) + std::log2(3 * p_c / 4)) / 2));
  CHECK_THROWS_WITH(bigram_bpc(train, {0}, 3), Catch::Contains("no label"));
}

TEST_CASE("load_corpus: a missing file names the path and the package to install", "[lab][text]") {
  CHECK_THROWS_WITH(load_corpus(Task::poems, "/nonexistent/tang300"),
                    Catch::Contains("/nonexistent/tang300") &&
                        Catch::Contains("apt-get install fortunes-zh"));
  CHECK_THROWS_WITH(load_corpus(Task::english, "/nonexistent/fortunes"),
                    Catch::Contains("apt-get install fortunes"));
  const fs::path file = fs::temp_directory_path() / "tapegrad_test_two_poems";
  { std::ofstream(file) << kTwoPoems; }
  CHECK_THROWS_WITH(load_corpus(Task::poems, file.string()), Catch::Contains("2 records"));
  fs::remove(file);
}

TEST_CASE("train_lm learns, and a resumed run gives the same bits as an uninterrupted one", "[lab][text]") {
  const TextCorpus corpus = rhyme_corpus();
  const fs::path dir = fs::temp_directory_path() / "tapegrad_test_lm_resume";
  fs::remove_all(dir);
  LmTrainingOptions whole = tiny_lm(10);
  const LmRun uninterrupted = train_lm(corpus, whole);
  REQUIRE(uninterrupted.evals.size() == 4);  // steps 0, 4, 8, 10
  CHECK(uninterrupted.evals.back().val_bpc < uninterrupted.evals.front().val_bpc - 0.5);

  for (long stop : {6L, 8L}) {  // between evaluations, and at one
    fs::remove_all(dir);
    LmTrainingOptions first = tiny_lm(10);
    first.checkpoint_dir = dir.string();
    first.stop_after = stop;
    train_lm(corpus, first);
    LmTrainingOptions rest = first;
    rest.stop_after = -1;
    rest.resume = true;
    const LmRun resumed = train_lm(corpus, rest);
    REQUIRE(resumed.evals.size() == uninterrupted.evals.size());
    for (std::size_t i = 0; i < resumed.evals.size(); ++i) {
      CHECK(resumed.evals[i].step == uninterrupted.evals[i].step);
      CHECK(resumed.evals[i].val_bpc == uninterrupted.evals[i].val_bpc);  // bit for bit
      CHECK(resumed.evals[i].train_bpc == uninterrupted.evals[i].train_bpc);
    }
    const auto a = resumed.model->named_parameters(), b = uninterrupted.model->named_parameters();
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].second.value() == b[i].second.value());
  }
  // Another run's checkpoint is refused.
  LmTrainingOptions other = tiny_lm(10);
  other.run.seed = 1;
  other.checkpoint_dir = dir.string();
  other.resume = true;
  CHECK_THROWS_WITH(train_lm(corpus, other), Catch::Contains("not of this one"));
  fs::remove_all(dir);
}

TEST_CASE("generation is seeded, and the KV cache's greedy tokens are the full forward's argmax path", "[lab][text]") {
  const TextCorpus corpus = rhyme_corpus();
  for (bool llama : {true, false}) {
    LmTrainingOptions o = tiny_lm(6);
    if (!llama) o.run.norm = NormKind::layer, o.run.activation = Activation::gelu,
                o.run.positions = Positions::learned, o.run.kv_heads = 0;
    const LmRun run = train_lm(corpus, o);
    nn::TransformerLM& model = *run.model;
    const std::vector<std::int64_t> prompt = corpus.vocab.encode(U"the ");
    no_grad guard;
    // Greedy through the cache against argmax of a full forward at every step (within one block).
    Generator g0(0);
    const auto cached = generate_ids(model, prompt, 7, o.run.seq_len, {0.0, 0, 1.0}, g0, true);
    std::vector<std::int64_t> path = prompt;
    while (path.size() < prompt.size() + 7) {
      Array x = Array::from_shape({1, path.size()});
      for (std::size_t t = 0; t < path.size(); ++t) x(0, t) = static_cast<double>(path[t]);
      const Array logits = model.forward(Tensor(x)).value();
      const std::size_t V = logits.shape()[2];
      std::size_t best = 0;
      for (std::size_t v = 1; v < V; ++v)
        if (logits(0, path.size() - 1, v) > logits(0, path.size() - 1, best)) best = v;
      path.push_back(static_cast<std::int64_t>(best));
    }
    CHECK(cached == path);
    // Sampling: the same seed, the same text, with or without the cache, also past the block (in pieces).
    const SamplingOptions sampling{0.8, 5, 0.9};
    Generator a(3), b(3), c(4);
    const auto with_cache = generate_ids(model, prompt, 30, o.run.seq_len, sampling, a, true);
    CHECK(with_cache.size() == prompt.size() + 30);
    CHECK(with_cache == generate_ids(model, prompt, 30, o.run.seq_len, sampling, b, false));
    CHECK(with_cache != generate_ids(model, prompt, 30, o.run.seq_len, sampling, c, true));
  }
}

TEST_CASE("Adam::load_state continues as the optimiser it was saved from, and refuses a wrong state", "[lab][text]") {
  auto make = [] { return Tensor(Array{{1.0, -2.0}, {0.5, 3.0}}, true); };
  Tensor a = make(), b = make();
  optim::Adam first({a}), second({b});
  auto step = [](optim::Adam& adam, Tensor& p) {
    adam.zero_grad();
    Tensor loss = sum(mul(p, p));
    loss.backward();
    adam.step();
  };
  step(first, a);
  second.load_state({first.state(0)});
  b.mutable_value() = a.value();
  step(first, a);
  step(second, b);
  CHECK(a.value() == b.value());
  CHECK(second.state(0).step == 2);
  CHECK_THROWS_WITH(second.load_state({}), Catch::Contains("0 states for 1 parameters"));
  optim::AdamParamState wrong = first.state(0);
  wrong.exp_avg = Array{1.0, 2.0};
  CHECK_THROWS_WITH(second.load_state({wrong}),
                    Catch::Contains("parameter 0 is (2, 2) but its state's moments are (2)"));
}
