#pragma once
// tapegrad::exercise: the grader of the "write it yourself" (手撕) exercises in exercises/.
//
// The learner writes a forward or a backward pass on plain arrays (loops or xtensor
// expressions over tapegrad::Array), never with the library's ops. A check_* function runs it
// on cases that cannot be fooled (the seeds' worked examples, random shapes of rank 1 to 3 with
// odd sizes, γ and β that are not 1 and 0, a non-uniform upstream gradient, 5·randn + 12, a
// large mean 1e6 + randn, constant rows, N = 1), compares every output with the library's
// reference (and a backward with finite differences of the learner's own forward), and, when
// something is wrong, names the mistake: it runs a catalogue of known wrong implementations on
// the same inputs and names the one that reproduces the learner's results on every failing case
// and is right where the learner is (or two made at once, "a+b"; or, "partly", the one that
// explains some of the failing cases). Each exercise's catalogue is in exercises/grader/src/exercise_<name>.cpp,
// the grading itself in exercises/grader/src/grading.cpp.
//
// The learner's code runs in a child process (fork), one call at a time: a crash, an endless
// loop (a timeout), an exception or printing is reported in the Report, and the caller (the
// scripts/exercise.sh program, a notebook kernel) lives on.
//
//   tapegrad::exercise::check_layer_norm_backward(layer_norm_backward)    // a Report
//
// In a notebook the Report shows as an HTML table (mime_bundle_repr below); printed, it is text
// whose last line is `result: pass` or `result: fail diagnosis=<id>`.

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/debug/display.hpp"  // TAPEGRAD_XEUS: are we in a xeus notebook kernel?

namespace tapegrad::exercise {

// What an exercise's skeleton throws: "not implemented yet: <function>".
class NotImplemented : public Error {
 public:
  explicit NotImplemented(const std::string& function);
};

// ---- what the learner's functions return ----
struct NormGrads {  // layer_norm_backward, rms_norm_backward (dbeta empty), batch_norm_backward
  Array dx, dgamma, dbeta;
};
struct ResidualGrads {  // y = x + x Wᵀ
  Array dx, dw;
};
struct FfnGrads {  // y = act(x W1ᵀ + b1) W2ᵀ + b2
  Array dx, dw1, db1, dw2, db2;
};
struct AddNormGrads {  // y = LN(x + fx)
  Array dx, dfx, dgamma, dbeta;
};
struct BlockGrads {  // Post-Norm y = LN(x + x Wᵀ + b), Pre-Norm y = x + LN(x) Wᵀ + b
  Array dx, dw, db, dgamma, dbeta;
};
struct AttentionGrads {  // y = softmax(q kᵀ / √D) v
  Array dq, dk, dv;
};
struct AdamState {  // one parameter's Adam state; step = updates so far
  Array param, m, v;
  long step = 0;
};

// ---- the signatures the exercises fix ----
using ResidualForward = std::function<Array(const Array& x, const Array& w)>;
using ResidualBackward = std::function<ResidualGrads(const Array& dy, const Array& x, const Array& w)>;
using NormForward = std::function<Array(const Array& x, const Array& gamma, const Array& beta, double eps)>;
using NormBackward = std::function<NormGrads(const Array& dy, const Array& x, const Array& gamma, double eps)>;
using RmsForward = std::function<Array(const Array& x, const Array& gamma, double eps)>;
using FfnForward = std::function<Array(const Array& x, const Array& w1, const Array& b1, const Array& w2,
                                       const Array& b2, const std::string& activation)>;
using FfnBackward = std::function<FfnGrads(const Array& dy, const Array& x, const Array& w1, const Array& b1,
                                           const Array& w2, const Array& b2, const std::string& activation)>;
using AddNormForward = std::function<Array(const Array& x, const Array& fx, const Array& gamma, const Array& beta,
                                           double eps)>;
using AddNormBackward = std::function<AddNormGrads(const Array& dy, const Array& x, const Array& fx,
                                                   const Array& gamma, double eps)>;
using BlockForward = std::function<Array(const Array& x, const Array& w, const Array& b, const Array& gamma,
                                         const Array& beta, double eps)>;
using BlockBackward = std::function<BlockGrads(const Array& dy, const Array& x, const Array& w, const Array& b,
                                               const Array& gamma, const Array& beta, double eps)>;
using SoftmaxBackward = std::function<Array(const Array& dy, const Array& y)>;
using AttentionBackward = std::function<AttentionGrads(const Array& dy, const Array& q, const Array& k,
                                                       const Array& v)>;
using AdamStep = std::function<AdamState(const AdamState& state, const Array& grad, double lr, double beta1,
                                         double beta2, double eps)>;

// How a check runs. Settled before it: by the caller (a notebook: {lang}), or once by the command-line
// driver from the environment and its arguments (options_from_environment); the grader reads no
// environment itself.
struct Options {
  std::string lang = "en";       // "en" or "zh" (zh_CN, ... are zh)
  double timeout_seconds = 10;   // per call of the learner's code
  bool isolate = true;           // run the learner's code in a child process
  int only_case = -1;            // >= 0: run only this case (how `scripts/exercise.sh --gdb` stops in it)
  std::string source;            // the learner's file: a sanitizer's frames are matched against it ("": any file
                                 // outside the library and the grader)
  // How much the hint says: 0 as always (what is wrong, why, and the formula); 1 only what is wrong; 2 what
  // and the formula; 3 what, the formula and the line of the learner's file (--source) it is likely on.
  int hint_level = 0;
};
// The options the environment sets: $TAPEGRAD_LANG (zh*: Chinese), $TAPEGRAD_EXERCISE_TIMEOUT (seconds,
// default 10), $TAPEGRAD_EXERCISE_FORK=0 (run in this process), $TAPEGRAD_EXERCISE_SOURCE (the learner's
// file). The command-line driver reads them once, then its arguments override them.
Options options_from_environment();

// One line of the report: one output (or a finite-difference comparison) on one case.
struct CheckRow {
  int case_index = 0;
  std::string case_name;
  std::string output;  // "y", "dx", "dgamma", "dx vs finite differences of your forward", ...
  bool passed = false;
  std::string detail;  // worst element (index, got, expected, error), shape, NaN/Inf, or what went wrong
  // The learner's function behind the row (the part of the exercise). Braces: rows written
  // {case, name, output, passed, detail} need not name it.
  std::string function{};
};

struct Report {
  std::string exercise;
  std::string lang = "en";
  std::vector<CheckRow> rows;
  bool passed = false;
  // Empty when passed. A catalogue id (eps_outside_sqrt, mean_term_missing, ...), "unknown" (no known
  // mistake matches), or what stopped the code: not_implemented, exception, crashed, timeout.
  std::string diagnosis;
  std::string hint;     // two or three sentences: what went wrong and why
  // The cases the diagnosis explains when it explains only some of the failing ones (the hint then
  // begins "Partly"); empty when it explains every failing case.
  std::vector<int> partly_cases;
  std::string printed;  // what the learner's code printed (std::cout, std::cerr), first case only
  int first_failing_case = -1;
  std::string first_failing_function;  // the learner's function whose result failed there first
  // "file.cpp:12": the learner's line behind a C++ pitfall (memory_error, undefined_behaviour,
  // xtensor_lazy_expression from a sanitizer; uninitialized_variable from the compiler); else empty.
  std::string location;
  // The compiler's other warnings for the learner's file (-O1 -Wall -Wextra), "file.cpp:12: message",
  // at most five (scripts/exercise.sh's second compile; empty in a notebook).
  std::vector<std::string> warnings;

  std::size_t failed_count() const;
  std::string result_line() const;  // "result: pass" or "result: fail diagnosis=<id>"
  std::string to_string() const;    // the text report; its last line is result_line()
  std::string to_html() const;      // a table, green and red rows, the diagnosis and hint
};
std::ostream& operator<<(std::ostream& out, const Report& report);

// ---- the checks, one per exercise (in the seeds' order) ----
Report check_residual(ResidualForward forward, ResidualBackward backward, const Options& options = {});
Report check_layer_norm_forward(NormForward forward, const Options& options = {});
Report check_layer_norm_backward(NormBackward backward, const Options& options = {});
Report check_rms_norm(RmsForward forward, NormBackward backward, const Options& options = {});
Report check_batch_norm(NormForward forward, NormBackward backward, const Options& options = {});
Report check_ffn(FfnForward forward, FfnBackward backward, const Options& options = {});
Report check_add_and_norm(AddNormForward forward, AddNormBackward backward, const Options& options = {});
Report check_post_norm(BlockForward forward, BlockBackward backward, const Options& options = {});
Report check_pre_norm(BlockForward forward, BlockBackward backward, const Options& options = {});
Report check_softmax_backward(SoftmaxBackward backward, const Options& options = {});
Report check_attention_backward(AttentionBackward backward, const Options& options = {});
Report check_adam_step(AdamStep step, const Options& options = {});
// Exercises 17-22 (the KV cache, SwiGLU, LoRA, dropout, sampling, a LLaMA block): their types and checks are in
// exercise_llm_parts.hpp, included at the end of this header.

// ---- what scripts/exercise.sh and the notebooks use ----
struct ExerciseInfo {
  std::string name;   // the file's name in exercises/ without .cpp
  std::string title;  // in the language asked for
};
std::vector<ExerciseInfo> exercises(const std::string& lang = "");
// The ids a check can diagnose for an exercise (its catalogue, in order; an id may have several entries).
std::vector<std::string> catalogue_ids(const std::string& exercise);
// "en" or "zh": `lang` if given, else $TAPEGRAD_LANG, else "en".
std::string language(const std::string& lang = "");
// Several reports as one (the blocks exercise checks three pairs of functions): rows (each case named
// after its report) and printing concatenated, passed if all passed, the diagnosis and first failing
// case of the first that failed; case indices stay each report's own.
Report combine(const std::string& exercise, const std::vector<Report>& reports);
// The report as data (grader_json.cpp): --json, each check with its worst element, the diagnosis, the
// hint and the line; --format gradescope, the results.json of Gradescope's autograder (a test per part).
std::string to_json(const Report& report);
std::string to_gradescope(const Report& report);
// The compiler's warnings (its output, as text) for the learner's file `source` into the report
// (compiler_warnings.cpp): a failing check with a maybe-uninitialized warning is uninitialized_variable
// at that line; the others are listed (at most five).
void add_compiler_warnings(Report& report, const std::string& compiler_output, const std::string& source);
// The command-line driver of scripts/exercise.sh: parses --lang, --case N, --in-process, --json,
// --format gradescope, --warnings FILE, --source FILE, --machine; prints the report, returns 0 if it
// passed, else 1.
int main_with(int argc, char** argv, const std::function<Report(const Options&)>& check);

}  // namespace tapegrad::exercise

// Exercises 11 to 16: softmax, cross-entropy, multi-head and grouped-query attention, RoPE.
#include "tapegrad_grader/exercise_llm.hpp"

// ---- notebook-only: the report as an HTML table (the same guard as display.hpp) ----
#if defined(TAPEGRAD_XEUS) || defined(TAPEGRAD_WITH_MIME_BUNDLE)
#include <nlohmann/json.hpp>

namespace tapegrad::exercise {

inline nlohmann::json mime_bundle_repr(const Report& report) {
  auto bundle = nlohmann::json::object();
  bundle["text/html"] = report.to_html();
  bundle["text/plain"] = report.to_string();
  return bundle;
}

}  // namespace tapegrad::exercise
#endif

#include "tapegrad_grader/exercise_llm_parts.hpp"  // exercises 17-22
