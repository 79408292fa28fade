#pragma once
// The grader's machinery (internal to exercises/grader/src): an exercise is a Spec, its cases, the library's
// reference, the learner's functions wrapped as Parts, and the catalogue of known mistakes.
// grade() runs it all and writes the Report. The exercises themselves are in exercise_*.cpp.

#include <functional>
#include <string>
#include <vector>

#include "tapegrad_grader/exercise.hpp"

namespace tapegrad::exercise::detail {

// A text in both languages.
struct Text {
  std::string en, zh;
  const std::string& in(const std::string& lang) const { return lang == "zh" && !zh.empty() ? zh : en; }
};

// One case: the inputs (their meaning is the exercise's), eps, and whether finite differences of the
// learner's forward are meaningful on it (not on the large-mean case: h = 1e-6 is below its rounding).
struct Case {
  Text name;
  std::vector<Array> in;
  double eps = 1e-5;
  std::string activation;  // the FFN's
  bool fd = true;
};

using Outputs = std::vector<Array>;
using Runner = std::function<Outputs(const Case&)>;

// One function the learner wrote, with the names of what it returns.
struct Part {
  std::string function;
  std::vector<std::string> outputs;
  Runner run;
};

// A known mistake: a wrong implementation of all the exercise's outputs (every part, concatenated).
// by_pattern: the mistake's numbers are rounding noise (E[x²] − E[x]² on a large mean), so it
// matches when the learner fails on exactly the same outputs, not by value.
struct Mistake {
  std::string id;
  Runner run;
  Text hint;
  bool by_pattern = false;
};

// The backward against central differences of the learner's own forward: sum(dy · forward(x))
// differentiated in in[x_input], compared with output `grad_output` (index over all parts' outputs).
struct FiniteDifferences {
  int forward_part = -1;  // -1: none
  int x_input = 0;
  int dy_input = 0;
  int grad_output = 0;
};

struct Spec {
  std::string exercise;
  std::vector<Case> cases;
  Runner reference;  // every part's outputs, concatenated
  std::vector<Part> parts;
  std::vector<Mistake> mistakes;
  // Two catalogued mistakes made at once (id "a+b", a before b in the catalogue's order): tried only
  // when no single mistake explains the failures. Not listed by catalogue_ids.
  std::vector<Mistake> pairs;
  FiniteDifferences fd;
};

Report grade(const Spec& spec, const Options& options);
// A check_* function's body: the learner's functions as the spec's parts, graded.
Report graded(Spec spec, std::vector<Part> parts, const Options& options);

// What a sanitizer (ASan, UBSan: the learner's program is built with them by scripts/exercise.sh)
// reported in the child, read by sanitizer_report.cpp. Empty id: no report.
struct SanitizerFinding {
  std::string id;        // memory_error, undefined_behaviour or xtensor_lazy_expression
  std::string tool;      // "AddressSanitizer" or "UndefinedBehaviorSanitizer"
  std::string kind;      // the sanitizer's words: "heap-buffer-overflow", "signed integer overflow: ..."
  std::string location;  // "file.cpp:12": the first frame in the learner's file (else the first outside /usr)
};
// `report`: the child's stderr; `source`: the learner's file ("" : any file outside /usr and the
// library's own); `line_of`: the text of a line of a file (for the keep_dims / auto pattern).
SanitizerFinding parse_sanitizer_report(const std::string& report, const std::string& source,
                                        const std::function<std::string(const std::string& file, int line)>& line_of);
// `file` (as a compiler or a sanitizer names it: absolute, or relative to where it ran) is `source`.
bool same_source_file(const std::string& file, const std::string& source);
// "file:line" or "file:line:column" → file and line (false when it is not one).
bool parse_location(const std::string& text, std::string& file, int& line);
// A compiler's or UBSan's line "file:line:column<marker>message" (marker ": warning: ", ": runtime error: ").
bool compiler_message(const std::string& text, const std::string& marker, std::string& file, int& line,
                      std::string& message);
// A line that holds a lazy xtensor expression the 0.24.3 trap bites: a keep_dims reduction inside a larger
// expression, or an `auto` holding an xtensor expression.
bool lazy_expression_line(const std::string& line);

// The learner's code in a child process (or in this one, options.isolate false).
struct RunResult {
  enum Status { ok, exception, crashed, timeout } status = ok;
  std::string message;  // the exception's what(), the signal, ...
  bool not_implemented = false;
  Outputs outputs;
  std::string printed;
  SanitizerFinding sanitizer;  // a sanitizer's report (then status is crashed)
};
RunResult run_isolated(const std::function<Outputs()>& job, bool isolate, double timeout_seconds);
// The diagnosis when the learner's code did not return outputs ("" when it did), and its hint
// (run_errors.cpp).
std::string run_error_id(const RunResult& r);
Text run_error_hint(const std::string& id);
// The ids of C++ pitfalls found by a sanitizer or the compiler: they outrank every other diagnosis (the
// values of code with undefined behaviour mean nothing).
bool is_cpp_pitfall(const std::string& id);

// ---- helpers the exercises share ----
// Random arrays from the library's Generator (the same numbers everywhere).
class Draw {
 public:
  explicit Draw(std::uint64_t seed);
  Array normal(const Shape& shape, double mean = 0.0, double stddev = 1.0);
  Array uniform(const Shape& shape, double lo, double hi);

 private:
  std::uint64_t seed_;
  std::uint64_t calls_ = 0;
};
// The array as (rows, last) in row-major order: rows = product of all axes but the last.
std::size_t last_dim(const Array& a);
std::size_t rows_of(const Array& a);
// The library's autograd: value and gradients of `f` at `inputs` for upstream gradient dy.
Outputs value_and_grads(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Array>& inputs,
                        const Array& dy);

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise::detail {
// Each exercise's Spec without the learner's parts (cases, reference, catalogue, finite differences);
// the check_* functions add the parts. By name: "layer_norm_forward", ..., as the files in exercises/.
Spec make_spec(const std::string& exercise);
Spec residual_spec();
Spec layer_norm_forward_spec();
Spec layer_norm_backward_spec();
Spec rms_norm_spec();
Spec batch_norm_spec();
Spec ffn_spec();
Spec add_and_norm_spec();
Spec post_norm_spec();
Spec pre_norm_spec();
Spec softmax_backward_spec();
Spec attention_backward_spec();
Spec adam_step_spec();
// exercises 17-21: exercise_kv_cache_decode.cpp, exercise_swiglu.cpp, exercise_lora.cpp, exercise_dropout.cpp,
// exercise_sampling.cpp
Spec kv_cache_decode_spec();
Spec swiglu_spec();
Spec lora_spec();
Spec dropout_spec();
Spec sampling_spec();
}  // namespace tapegrad::exercise::detail
