#pragma once
// RunConfig: everything that defines one run of the depth-stability lab, and
// so everything a replay (here or in PyTorch) needs to redo it.
//
// The reference experiment:
//   task    x ~ N(0, I) in d_in dims; y = argmax over `classes` of a fixed random
//           teacher tanh MLP d_in → teacher_hidden → classes (no biases,
//           N(0, 1/fan_in) weights); train and eval sets drawn once per seed.
//   model   input Linear(d_in → d), `depth` ResidualBlocks (FFN d → 4d → d, ReLU)
//           with the given placement, a final LayerNorm where the stack ends
//           un-normalised (pre, sandwich), head Linear(d → classes).
//   --arch transformer instead (lab/include/tapegrad/lab/sequence_task.hpp):
//   task    token sequences of length seq_len over `classes` tokens; the label at position t is
//           the token `copy_offset` positions earlier (cyclically): chance level ln K.
//   model   token + learned position Embeddings, `depth` TransformerBlocks (self-attention with
//           `heads` heads, then an FFN d → ffn_mult·d → d), both sublayers in the placement, a final
//           norm as above, head Linear(d → classes) at every position.
//   options init (pytorch: PyTorch's defaults; xavier: the papers' Xavier-uniform weights, zero
//           biases), norm (the placement's norms: layer, rms or batch), activation (relu, gelu, swiglu),
//           transformer: positions (learned embeddings, or RoPE in either pairing) and kv_heads (GQA/MQA):
//           with RoPE or kv_heads the attention is nn::MultiheadAttention (separate q, k, v, o projections, no
//           biases, LLaMA's), else nn::SelfAttention (PyTorch's packed nn.MultiheadAttention, GPT-2's);
//           precision (fp64, or fp32/bf16/fp16 emulated, pure or mixed: RunPrecision below).
//   train   Adam (PyTorch defaults) with lr · min(1, (step+1)/warmup), minibatches
//           of `batch` indices drawn with replacement-free sampling per step.

#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad/autograd/error.hpp"
#include "tapegrad/nn/residual_block.hpp"
#include "tapegrad/ops/feed_forward.hpp"

namespace tapegrad::lab {

// The choices of a run, each an enum with its names in enum order (choice_names<E>(), run_fields.cpp):
// the one place a name is turned into a value (parse_choice) and back (to_string).
enum class Arch { ffn, transformer };
enum class Init { pytorch, xavier };             // PyTorch's defaults; the papers' Xavier-uniform, zero biases
enum class NormKind { layer, rms, batch };       // LayerNorm, RMSNorm, BatchNorm (nn::make_norm's names)
// The FFN's activation is the library's enum (tapegrad::Activation, ops/activation.hpp), all five of it.
// How a run stores its numbers (docs/lab.md, "Low precision"): fp64 is the library's float64; fp32, bf16 and fp16
// train the whole model in that format (every op's output, gradient, parameter and Adam's state rounded to it,
// as model.half() does); the -mixed ones keep float32 master weights with Adam's state in float32 and scale the
// loss (GradScaler's dynamic rule), as AMP does; -mixed-noscale keeps the master weights without a loss scale.
// The final norm before the head: automatic (the placement's: pre and sandwich have one) or none.
enum class FinalNormMode { automatic, none };
// Where the Transformer's positions come from: learned (a position Embedding added to the tokens', GPT-2) or
// RoPE on the queries and keys of every block, no position embedding (LLaMA), in its half_split pairing (rope:
// Hugging Face's, the library's default) or its interleaved one (rope-interleaved: the paper's and Meta's).
enum class Positions { learned, rope, rope_interleaved };
// The Transformer's embeddings: normal (N(0, 1) each, so E||x_0||^2 = 2d per token) or unit (the same draws
// times 1/sqrt(2d): E||x_0||^2 = 1, the unit-norm inputs Xiong et al.'s analysis assumes).
enum class EmbedScale { normal, unit };
// The data a run learns: synthetic (the arch's own task: the teacher for ffn, the copy task for transformer), or
// character-level language modelling on a fortune file (lab/include/tapegrad/lab/text_corpus.hpp): poems (Tang
// poems, fortunes-zh's tang300) or english (the fortunes package's fortunes), trained by `tapegrad-depth poems`.
enum class Task { synthetic, poems, english };
std::string to_string(Task value);
std::string to_string(FinalNormMode value);
std::string to_string(EmbedScale value);
std::string to_string(Positions value);

enum class RunPrecision { fp64, fp32, bf16, fp16, bf16_mixed, fp16_mixed, bf16_mixed_noscale, fp16_mixed_noscale };

std::string to_string(Arch value);
std::string to_string(Init value);
std::string to_string(NormKind value);
std::string to_string(RunPrecision value);

// Every field of a run. lab/src/run_fields.cpp holds the one table of them (name, command-line option,
// range, default sweep, place in the run id and the seeds) that the command line, config.json,
// sweep.json, the run id, the replay record and validate() read; a new field is one row there.
struct RunConfig {
  nn::Placement placement = nn::Placement::pre;
  std::size_t depth = 4;          // number of residual blocks L
  std::size_t d = 32;             // width of the residual stream
  double lr = 1e-3;               // peak learning rate
  long warmup = 0;                // linear warmup steps (0: none)
  std::uint64_t seed = 0;
  long steps = 300;
  std::size_t batch = 64;
  // The task (the same for every run of a sweep).
  std::size_t train_size = 2048;
  std::size_t eval_size = 1024;
  std::size_t d_in = 16;
  std::size_t classes = 8;
  std::size_t teacher_hidden = 32;
  long eval_every = 50;           // eval-loss checks for the collapse criterion
  // The architecture and its choices. The defaults are the original FFN lab; run_id and the seeds
  // mention a setting only when it differs from its default.
  Arch arch = Arch::ffn;
  Init init = Init::pytorch;
  NormKind norm = NormKind::layer;
  Activation activation = Activation::relu;
  std::size_t ffn_mult = 4;           // FFN hidden width = ffn_mult · d
  std::size_t heads = 4;              // transformer: attention heads (d % heads == 0)
  std::size_t seq_len = 16;           // transformer: tokens per sequence
  RunPrecision precision = RunPrecision::fp64;  // not in config.json, sweep.json or the run id at fp64
  // Two departures from the lab's model, to test why a finding of the papers does not reproduce (the width
  // study, scripts/lab-widths.sh); like precision, absent from config.json, sweep.json and the id by default.
  FinalNormMode final_norm_mode = FinalNormMode::automatic;  // none: no final norm even where the placement has one
  EmbedScale embed_scale = EmbedScale::normal;  // transformer: unit: embeddings drawn N(0,1), scaled to E||x_0||^2 = 1
  // The LLaMA-style block's attention (transformer only; the defaults are the GPT-2-style block).
  Positions positions = Positions::learned;
  std::size_t kv_heads = 0;  // key/value heads: 0 = heads (multi-head), 1 = multi-query, a divisor of heads = GQA
  Task task = Task::synthetic;  // the text tasks: seq_len is the block size, classes the vocabulary (from the corpus)
  // Residual dropout on every sublayer's output in training (nn::ResidualBlockOptions::dropout); 0 = none.
  double dropout = 0.0;

  bool operator==(const RunConfig& other) const;  // every field of the table equal
  bool operator!=(const RunConfig& other) const { return !(*this == other); }
};

// The largest settings a run may ask for: beyond them a typo (an extra digit, a
// negative number read as unsigned) would exhaust memory or run for days.
struct RunLimits {
  static constexpr std::size_t max_depth = 1024;
  static constexpr std::size_t max_width = 4096;
  static constexpr long max_steps = 1000000;
  static constexpr std::size_t max_set_size = 1000000;  // train_size, eval_size
  static constexpr std::size_t max_ffn_mult = 64;
  static constexpr std::size_t max_seq_len = 1024;
  static constexpr std::uint64_t max_bytes = std::uint64_t{4} << 30;  // estimated_bytes() of one run: 4 GiB
};

// A rough upper estimate of a run's memory: parameters with their gradients and
// Adam's two moments, the activations one step keeps for backward, the data
// sets and the minibatch indices.
std::uint64_t estimated_bytes(const RunConfig& config);

inline bool is_transformer(const RunConfig& config) { return config.arch == Arch::transformer; }
// The attention of a LLaMA-style block (nn::MultiheadAttention: RoPE or grouped key/value heads) rather than
// nn::SelfAttention.
inline bool has_llama_attention(const RunConfig& config) {
  return is_transformer(config) && (config.positions != Positions::learned || config.kv_heads != 0);
}
// The FFN's hidden width: ffn_mult·d, or for swiglu (three matrices) LLaMA's 2/3 of it, rounded up to a multiple
// of 8, so that the parameter count stays that of the two-matrix FFN (nn::llama_hidden_size for ffn_mult 4).
std::size_t ffn_hidden(const RunConfig& config);
// The examples of one evaluation forward, from the labels per example (1, or seq_len for the Transformer):
// at least 1024 rows of activations and at least `at_least` examples (depth_run.hpp's eval_chunk_examples
// says why). Here, below the run, so that the memory estimate counts one chunk, not the whole eval set.
std::size_t eval_chunk_examples(std::size_t labels_per_example, std::size_t at_least);

// Whether the model has a norm before its head: the placement's need (nn::needs_final_norm), unless
// final_norm_mode is none.
bool has_final_norm(const RunConfig& config);

// The sequence task's rule: the label at position t is the token kCopyOffset positions earlier.
constexpr std::size_t kCopyOffset = 2;

// A bad value of a field: `field` is its key ("depth"; "" for the run as a whole, e.g. its memory), `problem`
// what is wrong ("a depth (number of blocks) must be between 1 and 1024, got 0"). what() is
// "RunConfig: depth: a depth ..."; the command line names the option instead ("--depths: a depth ...").
struct FieldError : Error {
  FieldError(std::string field, std::string problem);
  std::string field, problem;
};

// The one check of a run: each field against its range or choices (the table's), then the rules between
// fields (batch <= train_size, heads divides d for the Transformer, the memory estimate). Throws FieldError
// naming the first bad field. The sweep (expand), config.json (run_config_from_json) and run_experiment
// call it; code behind them takes a RunConfig as valid.
void validate(const RunConfig& config);

// A file-name-safe id unique within a sweep: "post_L8_d32_lr0.01_w0_T300_b64_s0"; settings that differ
// from RunConfig's defaults follow ("..._s0_transformer_h4_S16_xavier").
std::string run_id(const RunConfig& config);

// The shortest decimal text that reads back as exactly x ("0.01", "1e-05",
// "0.30000000000000004"); "nan", "inf", "-inf" for the non-finite.
// Used in every CSV so that equal runs give byte-equal files.
std::string format_double(double x);

// Seeds for the run's independent random streams, each a hash of the seed
// and only the settings that stream depends on:
//   data     (seed, task sizes)             the same data for every run of a seed
//   init     (seed, placement, depth, d,    the same initial weights across lr and warmup
//             arch, init, ffn_mult, seq_len when not the defaults; heads, norm and activation
//             draw nothing, so runs that differ only there start from the same weights)
//   (data also depends on arch and seq_len when not the defaults)
//   batches  (seed, batch, train_size)      the same minibatch order across models
//   dropout  (seed, the init seed's key)     the dropout masks (a fourth stream, drawn only when dropout > 0)
std::uint64_t data_seed(const RunConfig& config);
std::uint64_t init_seed(const RunConfig& config);
std::uint64_t batch_seed(const RunConfig& config);
std::uint64_t dropout_seed(const RunConfig& config);

// The hash behind the seeds (FNV-1a, then SplitMix64's finaliser): the same
// value on every build, so it also serves as the checksum of a run's files.
std::uint64_t stable_hash(const std::string& text);

// config.json of a replay record (also carries DeepNorm's α, β and whether
// there is a final norm, for readers that do not recompute them).
std::string to_json(const RunConfig& config);
// Throws tapegrad::Error on missing or mistyped fields.
RunConfig run_config_from_json(const std::string& text);

}  // namespace tapegrad::lab
