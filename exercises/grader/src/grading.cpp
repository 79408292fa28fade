// Grading: runs an exercise's cases on the learner's functions (in a child process each), compares
// every output with the library's reference, the backward with finite differences of the learner's
// own forward, and names the mistake from the catalogue. The report's text is grader_report.cpp, the
// command-line driver grader_driver.cpp.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "grader.hpp"
#include "grader_texts.hpp"
#include "tapegrad/autograd/random.hpp"
#include "tapegrad/debug/report_language.hpp"

namespace tapegrad::exercise {

NotImplemented::NotImplemented(const std::string& function) : Error("not implemented yet: " + function) {}

std::string language(const std::string& lang) { return report_language(lang); }

namespace detail {

// ---- random inputs ----
Draw::Draw(std::uint64_t seed) : seed_(seed) {}
Array Draw::normal(const Shape& shape, double mean, double stddev) {
  Generator g(seed_ * 1000003u + calls_++);
  return g.randn(shape, mean, stddev);
}
Array Draw::uniform(const Shape& shape, double lo, double hi) {
  Generator g(seed_ * 1000003u + calls_++);
  return g.rand(shape, lo, hi);
}

std::size_t last_dim(const Array& a) { return a.dimension() == 0 ? 1 : a.shape().back(); }
std::size_t rows_of(const Array& a) {
  const std::size_t n = last_dim(a);
  return n == 0 ? 0 : a.size() / n;
}

Outputs value_and_grads(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Array>& inputs,
                        const Array& dy) {
  std::vector<Tensor> ts;
  for (const Array& a : inputs) ts.emplace_back(a, true);
  const Tensor y = f(ts);
  y.backward(dy);
  Outputs out{y.value()};
  for (const Tensor& t : ts) out.push_back(t.has_grad() ? t.grad() : Array(xt::zeros<double>(t.shape())));
  return out;
}

namespace text {
std::string fill(const std::string& pattern, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string s = pattern;
  for (const auto& [name, value] : values) {
    const std::string key = "{" + name + "}";
    for (std::size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
      s.replace(at, key.size(), value);
  }
  return s;
}
}  // namespace text

namespace {

// ---- comparing arrays ----
// Grading: |got − expected| <= atol + rtol·|expected| elementwise. Correct double implementations,
// written any way (two passes, Welford, via x̂), agree to ~1e-12; the mistakes differ by far more.
struct Tolerance {
  double atol, rtol;
};
constexpr Tolerance kGrade{1e-7, 1e-6};
// Matching a mistake: the learner's wrong code and the catalogue's are written differently.
constexpr Tolerance kMatch{1e-6, 1e-4};
// Against central differences (h = 1e-6): the guide's tolerances for a gradient check in double.
constexpr Tolerance kFiniteDiff{1e-5, 1e-3};

std::string num(double v, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}
// got and expected with as many digits as it takes to tell them apart (never "got 1.22474,
// expected 1.22474"): 6, or more up to the 17 that tell any two doubles apart.
std::pair<std::string, std::string> distinct(double got, double expected) {
  for (int digits = 6;; ++digits) {
    std::string g = num(got, digits), e = num(expected, digits);
    if (g != e || digits >= 17) return {g, e};
  }
}
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

Shape shape_of(const Array& a) { return Shape(a.shape().begin(), a.shape().end()); }

struct Comparison {
  bool passed = false;
  bool shape_wrong = false;
  std::string detail;
};

Comparison compare(const Array& got, const Array& expected, Tolerance tol, const std::string& lang) {
  Comparison c;
  if (shape_of(got) != shape_of(expected)) {
    c.shape_wrong = true;
    c.detail = text::shape.in(lang) + shape_str(got.shape()) + text::expected.in(lang) + shape_str(expected.shape());
    return c;
  }
  std::vector<std::size_t> bad;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!std::isfinite(got.data()[i]) && std::isfinite(expected.data()[i])) bad.push_back(i);
  if (!bad.empty()) {
    std::ostringstream out;
    const double v = got.data()[bad[0]];
    out << (std::isnan(v) ? "NaN" : "Inf") << text::at.in(lang);
    for (std::size_t k = 0; k < std::min<std::size_t>(bad.size(), 3); ++k)
      out << (k ? ", " : "") << index_str(shape_of(got), bad[k]);
    if (bad.size() > 3) out << ", ...";
    out << " (" << bad.size() << text::of.in(lang) << got.size() << text::elements.in(lang);
    c.detail = out.str();
    return c;
  }
  double worst = -1, worst_abs = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got.data()[i], e = expected.data()[i];
    const double err = std::abs(g - e);
    const double ratio = err / (tol.atol + tol.rtol * std::abs(e));
    if (ratio > worst) worst = ratio, worst_abs = err, at = i;
  }
  c.passed = worst <= 1.0;
  if (got.size() == 0) {
    c.detail = text::empty.in(lang);
  } else if (c.passed) {
    c.detail = text::max_error.in(lang) + sci(worst_abs);
  } else {
    const auto [g, e] = distinct(got.data()[at], expected.data()[at]);
    // a single number (Adam's step) has no "worst element" to point at
    const std::string where = got.size() == 1 ? text::got_scalar.in(lang)
                                              : text::worst_at.in(lang) + index_str(shape_of(got), at) + text::got.in(lang);
    c.detail = where + g + text::expected.in(lang) + e + text::error.in(lang) + sci(worst_abs);
  }
  return c;
}

// Same shape, same NaN positions, and the finite values within tol.
bool matches(const Array& got, const Array& other, Tolerance tol) {
  if (shape_of(got) != shape_of(other)) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got.data()[i], o = other.data()[i];
    if (std::isnan(g) || std::isnan(o)) {
      if (std::isnan(g) != std::isnan(o)) return false;
      continue;
    }
    if (std::isinf(g) || std::isinf(o)) {
      if (g != o) return false;
      continue;
    }
    if (std::abs(g - o) > tol.atol + tol.rtol * std::abs(o)) return false;
  }
  return true;
}

std::string case_label(const Case& c, int index, const std::string& lang) {
  return text::case_word.in(lang) + std::to_string(index) + ": " + c.name.in(lang);
}

// "case 3" or "cases 3, 4 and 6" (zh: 用例 3、4、6)
std::string cases_str(const std::vector<int>& cases, const std::string& lang) {
  std::string s = (cases.size() == 1 ? text::case_word : text::cases_word).in(lang);
  for (std::size_t i = 0; i < cases.size(); ++i) s += (i ? text::list_sep.in(lang) : "") + std::to_string(cases[i]);
  return s;
}

std::string joined(const std::vector<std::string>& words, const std::string& lang) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) s += (i ? text::list_sep.in(lang) : "") + words[i];
  return s;
}

// d/dx of sum(dy · forward(x)) by central differences, x = in[x_input].
Array finite_differences(const Part& forward, const Case& c, const FiniteDifferences& fd) {
  const double h = 1e-6;
  Case shifted = c;
  Array& x = shifted.in[fd.x_input];
  const Array& dy = c.in[fd.dy_input];
  Array grad = xt::zeros<double>(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x.data()[i];
    x.data()[i] = keep + h;
    const Array up = forward.run(shifted).at(0);
    x.data()[i] = keep - h;
    const Array down = forward.run(shifted).at(0);
    x.data()[i] = keep;
    if (shape_of(up) != shape_of(dy)) throw ShapeError("forward's output has the shape " + shape_str(up.shape()) +
                                                       ", the upstream gradient " + shape_str(dy.shape()));
    grad.data()[i] = (xt::sum(dy * up)() - xt::sum(dy * down)()) / (2 * h);
  }
  return grad;
}

// ---- one case, run: a record per output ----
struct OutputResult {
  Array got;
  bool present = false;  // its part ran and returned it
  bool passed = false;
  bool shape_wrong = false;
};

struct CaseRun {
  int index = -1;
  Outputs expected;  // the reference's
  std::vector<OutputResult> outputs;
  std::string error_id;  // the first of its parts that did not run: not_implemented, exception, ...
  bool fd_ran = false, fd_passed = false;

  bool any_present() const {
    return std::any_of(outputs.begin(), outputs.end(), [](const OutputResult& o) { return o.present; });
  }
  // An output that ran is wrong: a catalogued mistake can explain this case.
  bool wrong_value() const {
    return std::any_of(outputs.begin(), outputs.end(), [](const OutputResult& o) { return o.present && !o.passed; });
  }
};

// What grade() knows while it runs: the spec, the language, how the learner's code runs, the report.
struct Grading {
  const Spec& spec;
  std::string lang;
  const Options& options;  // how the learner's code runs (isolate, timeout_seconds, source), the hint's level
  std::vector<std::string> names;  // every part's outputs, concatenated
  Report report;
  std::vector<std::string> row_function;  // the learner's function behind each row
  bool stopped = false;                   // a case timed out: the later ones are not run
  std::string pitfall;                    // the first C++ pitfall a sanitizer reported

  void add_row(int ci, const std::string& label, const std::string& output, bool passed, const std::string& detail,
               const std::string& function) {
    report.rows.push_back({ci, label, output, passed, detail});
    report.rows.back().function = function;
    row_function.push_back(function);
  }
};

// Step 1: the cases to run (all, or the one --case asks for).
std::vector<int> cases_to_run(const Spec& spec, const Options& options) {
  std::vector<int> cases;
  for (std::size_t ci = 0; ci < spec.cases.size(); ++ci)
    if (options.only_case < 0 || static_cast<int>(ci) == options.only_case) cases.push_back(static_cast<int>(ci));
  return cases;
}

// Step 3: a part's rows, one per output it returned (or one saying why it did not run).
void part_rows(Grading& g, CaseRun& run, const Part& part, std::size_t first_output, const RunResult& r,
               const std::string& label) {
  if (r.status == RunResult::ok && r.outputs.size() == part.outputs.size()) {
    for (std::size_t k = 0; k < part.outputs.size(); ++k) {
      OutputResult& o = run.outputs[first_output + k];
      const Comparison cmp = compare(r.outputs[k], run.expected.at(first_output + k), kGrade, g.lang);
      o = {r.outputs[k], true, cmp.passed, cmp.shape_wrong};
      g.add_row(run.index, label, part.outputs[k], cmp.passed, cmp.detail, part.function);
    }
    return;
  }
  const std::string id = run_error_id(r);
  if (run.error_id.empty()) run.error_id = id;
  if (g.pitfall.empty() && is_cpp_pitfall(id)) g.pitfall = id, g.report.location = r.sanitizer.location;
  g.add_row(run.index, label, part.function + "()", false, r.message, part.function);
  if (r.status == RunResult::timeout) g.stopped = true;
}

// The backward against finite differences of the learner's own forward.
void finite_difference_row(Grading& g, CaseRun& run, const Case& c, const std::string& label) {
  const FiniteDifferences& fd = g.spec.fd;
  if (fd.forward_part < 0 || !c.fd || g.stopped || !run.outputs[fd.grad_output].present) return;
  std::size_t first = 0;
  for (int pi = 0; pi < fd.forward_part; ++pi) first += g.spec.parts[pi].outputs.size();
  if (!run.outputs[first].present) return;  // the forward did not run
  const Part& forward = g.spec.parts[fd.forward_part];
  const RunResult r = run_isolated([&] { return Outputs{finite_differences(forward, c, fd)}; }, g.options);
  const std::string what = g.names[fd.grad_output] + text::vs_fd.in(g.lang);
  run.fd_ran = true;
  if (r.status == RunResult::ok && r.outputs.size() == 1) {
    const Comparison cmp = compare(run.outputs[fd.grad_output].got, r.outputs[0], kFiniteDiff, g.lang);
    run.fd_passed = cmp.passed;
    g.add_row(run.index, label, what, cmp.passed, cmp.detail, forward.function);
  } else {
    g.add_row(run.index, label, what, false, r.message, forward.function);
  }
}

// Step 2: run a case, every part in a child process, and write its rows.
CaseRun run_case(Grading& g, int ci) {
  const Case& c = g.spec.cases[ci];
  const std::string label = case_label(c, ci, g.lang);
  CaseRun run;
  run.index = ci;
  run.outputs.resize(g.names.size());
  if (g.stopped) {
    g.add_row(ci, label, "-", false, text::not_run.in(g.lang), "");
    return run;
  }
  run.expected = g.spec.reference(c);
  std::size_t first_output = 0;
  for (const Part& part : g.spec.parts) {
    const RunResult r = run_isolated([&] { return part.run(c); }, g.options);
    if (g.report.printed.empty() && !r.printed.empty()) g.report.printed = r.printed;
    part_rows(g, run, part, first_output, r, label);
    first_output += part.outputs.size();
  }
  finite_difference_row(g, run, c, label);
  return run;
}

// Step 4: the first failing row: its case and the learner's function behind it (where --gdb stops).
void first_failure(Grading& g) {
  for (std::size_t i = 0; i < g.report.rows.size(); ++i)
    if (!g.report.rows[i].passed) {
      g.report.first_failing_case = g.report.rows[i].case_index;
      g.report.first_failing_function = g.row_function[i];
      return;
    }
}

// ---- step 5: the diagnosis ----
// A mistake explains a case with a wrong value when it reproduces the learner's outputs there (by
// value; for the rounding-noise mistakes, by which outputs fail). It contradicts a case the learner
// got right when it is wrong there and does not reproduce the learner either.
struct Verdict {
  std::vector<int> explained;
  bool contradicted = false;
};

// every_case: stop at the first failing case it does not explain (the pairs: only a full match counts).
// masked: outputs left out (those whose shape is wrong, named beside the mistake that explains the rest).
Verdict judge(const Spec& spec, const Mistake& m, const std::vector<CaseRun>& runs, bool every_case = false,
              const std::vector<bool>& masked = {}) {
  const auto left_out = [&](std::size_t k) { return k < masked.size() && masked[k]; };
  Verdict v;
  for (const CaseRun& run : runs) {
    if (!run.any_present()) continue;
    Outputs theirs;
    try {
      theirs = m.run(spec.cases[run.index]);
    } catch (const std::exception&) {
      theirs.clear();
    }
    const bool valid = theirs.size() == run.outputs.size();
    bool wrong = false;
    for (std::size_t k = 0; k < run.outputs.size(); ++k)
      wrong |= run.outputs[k].present && !run.outputs[k].passed && !left_out(k);
    bool all = valid;
    for (std::size_t k = 0; k < run.outputs.size() && all; ++k) {
      const OutputResult& o = run.outputs[k];
      if (!o.present || left_out(k)) continue;
      const bool mistake_right = compare(theirs[k], run.expected[k], kGrade, "en").passed;
      if (m.by_pattern) all = mistake_right == o.passed;
      else all = matches(o.got, theirs[k], kMatch) || (!wrong && mistake_right);
    }
    if (wrong && all) v.explained.push_back(run.index);
    if (!wrong && !all) v.contradicted = true;
    if (wrong && !all && every_case) return v;
    if (v.contradicted) break;
  }
  return v;
}

// The unknown hint, from what the report shows: only shapes wrong; the forward right and the backward
// not what finite differences of it say; some outputs right everywhere; else where to look first.
// The hint when no catalogued mistake explains the failures; `diagnosis` becomes constant_factor when an
// output is off by a named factor (else it stays unknown).
std::string unknown_hint(const Grading& g, const std::vector<CaseRun>& runs, std::string& diagnosis) {
  const std::string& lang = g.lang;
  std::string hint = text::unknown_start.in(lang);
  const std::size_t n = g.names.size();
  std::vector<bool> right_everywhere(n, true), ran(n, false);
  bool any_wrong = false, only_shapes = true, fd_failed = false, fd_all_passed = true, fd_any = false;
  std::vector<std::string> shape_details;
  for (const CaseRun& run : runs) {
    for (std::size_t k = 0; k < n; ++k) {
      const OutputResult& o = run.outputs[k];
      if (!o.present) continue;
      ran[k] = true;
      if (o.passed) continue;
      right_everywhere[k] = false, any_wrong = true;
      only_shapes &= o.shape_wrong;
      const std::string d = g.names[k] + " " + shape_str(o.got.shape()) + text::expected.in(lang) +
                            shape_str(run.expected[k].shape());
      if (o.shape_wrong && std::find(shape_details.begin(), shape_details.end(), d) == shape_details.end() &&
          shape_details.size() < 3)
        shape_details.push_back(d);
    }
    if (run.fd_ran) fd_any = true, fd_failed |= !run.fd_passed, fd_all_passed &= run.fd_passed;
  }
  if (any_wrong && only_shapes) return hint + text::fill(text::only_shapes.in(lang), {{"details", joined(shape_details, lang)}});
  // An output off by the same named factor on every case it fails (a 1/M left out, √N).
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<double> factors;
    std::vector<const Case*> cases;
    std::vector<int> indices;
    for (const CaseRun& run : runs) {
      const OutputResult& o = run.outputs[k];
      if (!o.present || o.passed) continue;
      factors.push_back(scale_between(o.got, run.expected[k]));
      cases.push_back(&g.spec.cases[run.index]);
      indices.push_back(run.index);
    }
    if (factors.empty() || std::any_of(factors.begin(), factors.end(), [](double f) { return !(f > 0); })) continue;
    const bool large = std::abs(factors[0]) > 1;
    std::vector<double> sizes;
    for (double f : factors) sizes.push_back(large ? std::abs(f) : 1 / std::abs(f));
    const std::string name = factor_name(sizes, cases);
    if (name.empty()) continue;
    std::ostringstream value;
    value << std::round(sizes[0] * 1000) / 1000;
    diagnosis = "constant_factor";
    return hint + text::fill((large ? text::factor_too_large : text::factor_too_small).in(lang),
                             {{"output", g.names[k]}, {"factor", name}, {"value", value.str()},
                              {"case", cases_str({indices[0]}, lang)}});
  }
  const FiniteDifferences& fd = g.spec.fd;
  if (fd.forward_part >= 0) {
    std::size_t first = 0;
    for (int pi = 0; pi < fd.forward_part; ++pi) first += g.spec.parts[pi].outputs.size();
    bool forward_right = true;
    for (std::size_t k = first; k < first + g.spec.parts[fd.forward_part].outputs.size(); ++k)
      forward_right &= ran[k] && right_everywhere[k];
    const std::string out = g.names[fd.grad_output];
    if (forward_right && fd_failed) return hint + text::fill(text::forward_right_fd_wrong.in(lang), {{"output", out}});
    if (!forward_right && fd_any && fd_all_passed && !right_everywhere[fd.grad_output])
      return hint + text::fill(text::backward_follows_forward.in(lang), {{"output", out}});
  }
  std::vector<std::string> right, wrong;
  for (std::size_t k = 0; k < n; ++k)
    if (ran[k]) (right_everywhere[k] ? right : wrong).push_back(g.names[k]);
  if (!right.empty() && !wrong.empty())
    return hint + text::fill(text::some_outputs_right.in(lang),
                             {{"right", joined(right, lang) + (right.size() > 1 ? text::are : text::is).in(lang)},
                              {"wrong", joined(wrong, lang)}});
  // the smallest failing case (fewest elements in its first input)
  int smallest = g.report.first_failing_case;
  std::size_t size = static_cast<std::size_t>(-1);
  for (const CaseRun& run : runs)
    if (run.wrong_value() && g.spec.cases[run.index].in.at(0).size() < size)
      smallest = run.index, size = g.spec.cases[run.index].in[0].size();
  return hint + text::fill(text::compare_worst.in(lang), {{"case", cases_str({smallest}, lang)}});
}

void diagnose(Grading& g, const std::vector<CaseRun>& runs) {
  Report& report = g.report;
  const std::string& lang = g.lang;
  // A C++ pitfall a sanitizer found outranks the catalogue: the values of such code mean nothing.
  if (!g.pitfall.empty()) {
    report.diagnosis = g.pitfall;
    report.hint = run_error_hint(g.pitfall).in(lang);
    return;
  }
  std::vector<int> wrong, threw;
  std::string first_error;
  for (const CaseRun& run : runs) {
    if (run.wrong_value()) wrong.push_back(run.index);
    if (!run.error_id.empty()) {
      threw.push_back(run.index);
      if (first_error.empty()) first_error = run.error_id;
    }
  }
  if (wrong.empty()) {  // nothing ran wrong: what stopped the code (or only finite differences failed)
    report.diagnosis = !first_error.empty() ? first_error : "unknown";
    report.hint = first_error.empty() ? unknown_hint(g, runs, report.diagnosis) : run_error_hint(first_error).in(lang);
    return;
  }
  // Cases that threw beside wrong values: the exception's hint is kept after the diagnosis.
  const std::string threw_too = threw.empty() ? "" : text::fill(text::also_threw.in(lang), {{"cases", cases_str(threw, lang)}}) +
                                                         run_error_hint(first_error).in(lang);
  // The mistake's hint at the level asked for (--hint), level 3 with the learner's line.
  const int level = g.options.hint_level;
  auto name = [&](const Mistake& m, const std::string& prefix) {
    report.diagnosis = m.id;
    report.hint = prefix + hint_at_level(m.hint.in(lang), level, lang) +
                  (level >= 3 ? line_pointer(report, g.options.source, lang) : "") + threw_too;
  };
  std::vector<Verdict> verdicts;
  for (const Mistake& m : g.spec.mistakes) {
    verdicts.push_back(judge(g.spec, m, runs));
    if (!verdicts.back().contradicted && verdicts.back().explained.size() == wrong.size()) return name(m, "");
  }
  for (const Mistake& m : g.spec.pairs) {
    const Verdict v = judge(g.spec, m, runs, true);
    if (!v.contradicted && v.explained.size() == wrong.size()) return name(m, text::pair.in(lang));
  }
  // A shape mistake beside a value mistake: the outputs of a wrong shape left out, the mistake that explains
  // every other failure is named ("<id>+wrong_shape"), and the shapes beside it.
  std::vector<bool> shape_wrong(g.names.size(), false);
  std::vector<std::string> shapes;
  for (const CaseRun& run : runs)
    for (std::size_t k = 0; k < run.outputs.size(); ++k)
      if (run.outputs[k].present && run.outputs[k].shape_wrong && !shape_wrong[k]) {
        shape_wrong[k] = true;
        shapes.push_back(g.names[k] + " " + shape_str(run.outputs[k].got.shape()) + text::expected.in(lang) +
                         shape_str(run.expected[k].shape()));
      }
  if (std::find(shape_wrong.begin(), shape_wrong.end(), true) != shape_wrong.end()) {
    std::size_t value_wrong = 0;  // the failing cases with a wrong value in an output of the right shape
    for (const CaseRun& run : runs) {
      bool any = false;
      for (std::size_t k = 0; k < run.outputs.size(); ++k)
        any |= run.outputs[k].present && !run.outputs[k].passed && !shape_wrong[k];
      value_wrong += any;
    }
    for (const Mistake& m : g.spec.mistakes) {
      const Verdict v = judge(g.spec, m, runs, false, shape_wrong);
      if (value_wrong == 0 || v.contradicted || v.explained.size() != value_wrong) continue;
      name(m, "");
      report.diagnosis = m.id + "+wrong_shape";
      report.hint += text::fill(text::shapes_too.in(lang), {{"details", joined(shapes, lang)}});
      return;
    }
  }
  // None explains every failing case: the one that explains the most, "partly": at least two failing
  // cases and half of them (one case alone, an N = 1 case say, is a coincidence as often as not), and
  // by value (the rounding-noise mistakes are named by their pattern only when it is the whole one).
  const Mistake* best = nullptr;
  Verdict best_verdict;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    if (!verdicts[i].contradicted && !g.spec.mistakes[i].by_pattern &&
        verdicts[i].explained.size() > best_verdict.explained.size())
      best = &g.spec.mistakes[i], best_verdict = verdicts[i];
  const std::size_t explained = best_verdict.explained.size();
  if (best && explained >= 2 && 2 * explained >= wrong.size()) {
    std::vector<int> others;
    for (int ci : wrong)
      if (std::find(best_verdict.explained.begin(), best_verdict.explained.end(), ci) == best_verdict.explained.end())
        others.push_back(ci);
    report.partly_cases = best_verdict.explained;
    return name(*best, text::fill(text::partly.in(lang), {{"explained", cases_str(best_verdict.explained, lang)},
                                                          {"others", cases_str(others, lang)}}));
  }
  if (!first_error.empty()) {  // some cases threw, the others' wrong values are no known mistake
    report.diagnosis = first_error;
    report.hint = run_error_hint(first_error).in(lang) + text::fill(text::wrong_value_too.in(lang), {{"cases", cases_str(wrong, lang)}});
    return;
  }
  report.diagnosis = "unknown";
  report.hint = unknown_hint(g, runs, report.diagnosis);
}

}  // namespace

Report grade(const Spec& spec, const Options& options) {
  Grading g{spec,
            language_code(options.lang),
            options,
            {},
            {},
            {},
            false,
            {}};
  g.report.exercise = spec.exercise;
  g.report.lang = g.lang;
  for (const Part& p : spec.parts) g.names.insert(g.names.end(), p.outputs.begin(), p.outputs.end());

  std::vector<CaseRun> runs;
  for (int ci : cases_to_run(spec, options)) runs.push_back(run_case(g, ci));
  first_failure(g);
  g.report.passed = g.report.first_failing_case < 0 && !g.report.rows.empty();
  if (!g.report.passed) diagnose(g, runs);
  return std::move(g.report);
}

Report graded(Spec spec, std::vector<Part> parts, const Options& options) {
  spec.parts = std::move(parts);
  return grade(spec, options);
}

}  // namespace detail

}  // namespace tapegrad::exercise
