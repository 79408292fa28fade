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
#include "tapegrad/autograd/random.hpp"

namespace tapegrad::exercise {

NotImplemented::NotImplemented(const std::string& function) : Error("not implemented yet: " + function) {}

std::string language(const std::string& lang) {
  std::string l = lang;
  if (l.empty()) {
    const char* env = std::getenv("TAPEGRAD_LANG");
    l = env ? env : "";
  }
  return l.rfind("zh", 0) == 0 ? "zh" : "en";
}

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

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

Shape shape_of(const Array& a) { return Shape(a.shape().begin(), a.shape().end()); }

struct Comparison {
  bool passed = false;
  std::string detail;
};

Comparison compare(const Array& got, const Array& expected, Tolerance tol, const std::string& lang) {
  const bool zh = lang == "zh";
  Comparison c;
  if (shape_of(got) != shape_of(expected)) {
    c.detail = (zh ? "形状 " : "shape ") + shape_str(got.shape()) + (zh ? "，应为 " : ", expected ") +
               shape_str(expected.shape());
    return c;
  }
  std::vector<std::size_t> bad;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!std::isfinite(got.data()[i]) && std::isfinite(expected.data()[i])) bad.push_back(i);
  if (!bad.empty()) {
    std::ostringstream out;
    const double v = got.data()[bad[0]];
    out << (std::isnan(v) ? "NaN" : "Inf") << (zh ? " 位于 " : " at ");
    for (std::size_t k = 0; k < std::min<std::size_t>(bad.size(), 3); ++k)
      out << (k ? ", " : "") << index_str(shape_of(got), bad[k]);
    if (bad.size() > 3) out << ", ...";
    out << " (" << bad.size() << (zh ? " / " : " of ") << got.size() << (zh ? " 个元素)" : " elements)");
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
    c.detail = zh ? "空数组" : "empty";
  } else if (c.passed) {
    c.detail = (zh ? "最大误差 " : "max error ") + sci(worst_abs);
  } else {
    c.detail = (zh ? "最差元素 " : "worst at ") + index_str(shape_of(got), at) + (zh ? "：得到 " : ": got ") +
               num(got.data()[at]) + (zh ? "，应为 " : ", expected ") + num(expected.data()[at]) +
               (zh ? "，误差 " : ", error ") + sci(worst_abs);
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

double env_double(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  return end && *end == '\0' && d > 0 ? d : fallback;
}

std::string case_label(const Case& c, int index, const std::string& lang) {
  return (lang == "zh" ? "用例 " : "case ") + std::to_string(index) + ": " + c.name.in(lang);
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

}  // namespace

Report grade(const Spec& spec, const Options& options) {
  Report report;
  report.exercise = spec.exercise;
  report.lang = language(options.lang);
  const std::string& lang = report.lang;
  const bool zh = lang == "zh";
  const double timeout = options.timeout_seconds > 0 ? options.timeout_seconds
                                                     : env_double("TAPEGRAD_EXERCISE_TIMEOUT", 10.0);
  const char* fork_env = std::getenv("TAPEGRAD_EXERCISE_FORK");
  const bool isolate = options.isolate && !(fork_env && std::string(fork_env) == "0");

  std::vector<std::string> names;
  for (const Part& p : spec.parts) names.insert(names.end(), p.outputs.begin(), p.outputs.end());

  // Per case: the learner's outputs (empty where the part did not run), and whether each passed.
  struct CaseResult {
    int index = -1;
    std::vector<Array> got;
    std::vector<bool> present, passed;
  };
  std::vector<CaseResult> results;
  std::vector<std::string> row_function;  // the learner's function behind each row
  std::string first_error;
  std::string pitfall;  // the first C++ pitfall a sanitizer reported
  bool value_failure = false, stopped = false;

  for (std::size_t ci = 0; ci < spec.cases.size(); ++ci) {
    if (options.only_case >= 0 && static_cast<int>(ci) != options.only_case) continue;
    const Case& c = spec.cases[ci];
    const std::string label = case_label(c, static_cast<int>(ci), lang);
    if (stopped) {
      report.rows.push_back({static_cast<int>(ci), label, "-", false,
                             zh ? "未运行：前面的用例超时了" : "not run: an earlier case timed out"});
      row_function.push_back("");
      continue;
    }
    const Outputs expected = spec.reference(c);
    CaseResult cr;
    cr.index = static_cast<int>(ci);
    cr.got.resize(names.size());
    cr.present.assign(names.size(), false);
    cr.passed.assign(names.size(), false);
    std::size_t k0 = 0;
    std::vector<bool> part_ok(spec.parts.size(), false);
    for (std::size_t pi = 0; pi < spec.parts.size(); ++pi) {
      const Part& part = spec.parts[pi];
      const RunResult r = run_isolated([&] { return part.run(c); }, isolate, timeout);
      if (report.printed.empty() && !r.printed.empty()) report.printed = r.printed;
      if (r.status == RunResult::ok && r.outputs.size() == part.outputs.size()) {
        part_ok[pi] = true;
        for (std::size_t k = 0; k < part.outputs.size(); ++k) {
          const Comparison cmp = compare(r.outputs[k], expected.at(k0 + k), kGrade, lang);
          cr.got[k0 + k] = r.outputs[k];
          cr.present[k0 + k] = true;
          cr.passed[k0 + k] = cmp.passed;
          value_failure |= !cmp.passed;
          report.rows.push_back({static_cast<int>(ci), label, part.outputs[k], cmp.passed, cmp.detail});
          row_function.push_back(part.function);
        }
      } else {
        const std::string id = run_error_id(r);
        if (first_error.empty()) first_error = id;
        if (pitfall.empty() && is_cpp_pitfall(id)) pitfall = id, report.location = r.sanitizer.location;
        report.rows.push_back({static_cast<int>(ci), label, part.function + "()", false, r.message});
        row_function.push_back(part.function);
        if (r.status == RunResult::timeout) stopped = true;
      }
      k0 += part.outputs.size();
    }
    // The backward against finite differences of the learner's own forward.
    const FiniteDifferences& fd = spec.fd;
    if (fd.forward_part >= 0 && c.fd && part_ok[fd.forward_part] && cr.present[fd.grad_output] && !stopped) {
      const Part& forward = spec.parts[fd.forward_part];
      const RunResult r = run_isolated([&] { return Outputs{finite_differences(forward, c, fd)}; }, isolate, timeout);
      const std::string what = names[fd.grad_output] + (zh ? " 对比你的前向的有限差分" : " vs finite differences of your forward");
      if (r.status == RunResult::ok && r.outputs.size() == 1) {
        const Comparison cmp = compare(cr.got[fd.grad_output], r.outputs[0], kFiniteDiff, lang);
        report.rows.push_back({static_cast<int>(ci), label, what, cmp.passed, cmp.detail});
      } else {
        report.rows.push_back({static_cast<int>(ci), label, what, false, r.message});
      }
      row_function.push_back(forward.function);
    }
    results.push_back(std::move(cr));
  }

  for (std::size_t i = 0; i < report.rows.size(); ++i) report.rows[i].function = row_function[i];
  for (std::size_t i = 0; i < report.rows.size(); ++i)
    if (!report.rows[i].passed) {
      report.first_failing_case = report.rows[i].case_index;
      report.first_failing_function = row_function[i];
      break;
    }
  report.passed = report.first_failing_case < 0 && !report.rows.empty();
  if (report.passed) return report;

  // A C++ pitfall a sanitizer found outranks the catalogue: the values of such code mean nothing.
  if (!pitfall.empty()) {
    report.diagnosis = pitfall;
    report.hint = run_error_hint(pitfall).in(lang);
    return report;
  }
  // The diagnosis: the first catalogued mistake whose results the learner's match on every output
  // that ran (by value, or by the pattern of failures for the rounding-noise mistakes).
  if (value_failure) {
    for (const Mistake& m : spec.mistakes) {
      bool all = true;
      for (const CaseResult& cr : results) {
        Outputs theirs;
        try {
          theirs = m.run(spec.cases[cr.index]);
        } catch (const std::exception&) {
          all = false;
        }
        if (!all || theirs.size() != names.size()) {
          all = false;
          break;
        }
        const Outputs expected = m.by_pattern ? spec.reference(spec.cases[cr.index]) : Outputs{};
        for (std::size_t k = 0; k < names.size() && all; ++k) {
          if (!cr.present[k]) continue;
          if (m.by_pattern) {
            const bool mistake_passes = compare(theirs[k], expected[k], kGrade, "en").passed;
            all = mistake_passes == cr.passed[k];
          } else {
            all = matches(cr.got[k], theirs[k], kMatch);
          }
        }
        if (!all) break;
      }
      if (all && !results.empty()) {
        report.diagnosis = m.id;
        report.hint = m.hint.in(lang);
        return report;
      }
    }
  }
  report.diagnosis = !value_failure && !first_error.empty() ? first_error : "unknown";
  report.hint = run_error_hint(report.diagnosis).in(lang);
  return report;
}

}  // namespace detail

}  // namespace tapegrad::exercise
