// The grader: runs an exercise's cases on the learner's functions (in a child process each), compares
// every output with the library's reference, the backward with finite differences of the learner's
// own forward, and names the mistake from the catalogue. Also the report's text and HTML.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "grader.hpp"
#include "tapegrad/autograd/random.hpp"
#include "tapegrad/debug/display.hpp"  // escape_html

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

std::string index_str(const Shape& shape, std::size_t flat) {
  if (shape.empty()) return "()";
  Shape idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_str(idx);
}

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

Text run_error_hint(const std::string& id) {
  if (id == "not_implemented")
    return {"The function still throws \"not implemented yet\": replace that line with your code. "
            "The statement and the formula are in the comment above it.",
            "函数仍然抛出 \"not implemented yet\"：把这一行换成你的代码。题目和公式写在它上面的注释里。"};
  if (id == "exception")
    return {"Your code threw an exception (the message is in the row above). Often it is an xtensor "
            "broadcast between shapes that do not fit: print the shapes of your intermediate arrays.",
            "你的代码抛出了异常（信息见上面的行）。常见原因是 xtensor 在不匹配的形状之间广播："
            "打印中间数组的形状看看。"};
  if (id == "crashed")
    return {"Your code crashed (the signal is in the row above): most often an index outside an array "
            "(x[i] with i >= size, or the wrong axis length). Run with --gdb to stop where it happens.",
            "你的代码崩溃了（信号见上面的行）：最常见的是数组越界（i >= size，或用错了轴的长度）。"
            "加 --gdb 运行，可以停在出错的地方。"};
  if (id == "timeout")
    return {"Your code did not finish in time and was stopped: an endless loop? Check each loop's "
            "condition and that its counter moves (an unsigned i-- never goes below 0).",
            "你的代码没有按时结束，被停止了：是死循环吗？检查每个循环的条件和计数器是否在变化"
            "（无符号整数 i-- 永远不会小于 0）。"};
  return {"No known mistake matches your results. Compare the worst elements above with the formula, "
          "on the smallest failing case first.",
          "没有已知的错误与你的结果吻合。先在最小的失败用例上，对照上面最差的元素和公式检查。"};
}

std::string run_error_id(const RunResult& r) {
  if (r.not_implemented) return "not_implemented";
  switch (r.status) {
    case RunResult::exception: return "exception";
    case RunResult::crashed: return "crashed";
    case RunResult::timeout: return "timeout";
    default: return "";
  }
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

  for (std::size_t i = 0; i < report.rows.size(); ++i)
    if (!report.rows[i].passed) {
      report.first_failing_case = report.rows[i].case_index;
      report.first_failing_function = row_function[i];
      break;
    }
  report.passed = report.first_failing_case < 0 && !report.rows.empty();
  if (report.passed) return report;

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

// ---- the report ----
std::size_t Report::failed_count() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const CheckRow& r) { return !r.passed; }));
}

std::string Report::result_line() const {
  return passed ? "result: pass" : "result: fail diagnosis=" + (diagnosis.empty() ? std::string("unknown") : diagnosis);
}

namespace {
// Width in columns: a CJK character (3 UTF-8 bytes) takes two, other characters one.
std::size_t columns(const std::string& s) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    const std::size_t len = ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
    cols += len == 3 && ch >= 0xE3 ? 2 : 1;
    i += len;
  }
  return cols;
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t cols = columns(s);
  return cols >= width ? s : s + std::string(width - cols, ' ');
}

}  // namespace

std::string Report::to_string() const {
  const bool zh = lang == "zh";
  std::ostringstream out;
  const std::size_t failed = failed_count();
  if (zh)
    out << "练习 " << exercise << "：" << rows.size() << " 项检查，" << rows.size() - failed << " 项通过\n";
  else
    out << "exercise " << exercise << ": " << rows.size() - failed << " of " << rows.size() << " checks passed\n";
  std::size_t case_width = 0, out_width = 0;
  for (const CheckRow& r : rows)
    case_width = std::max(case_width, columns(r.case_name)), out_width = std::max(out_width, columns(r.output));
  case_width = std::min<std::size_t>(case_width, 56);
  out_width = std::min<std::size_t>(out_width, 16);
  for (const CheckRow& r : rows)
    out << "  " << (r.passed ? (zh ? "通过  " : "ok    ") : (zh ? "失败  " : "FAIL  ")) << pad(r.case_name, case_width)
        << "  " << pad(r.output, out_width) << "  " << r.detail << "\n";
  if (!printed.empty()) {
    out << (zh ? "你的代码打印了：\n" : "your code printed:\n");
    std::istringstream lines(printed);
    std::string line;
    while (std::getline(lines, line)) out << "  | " << line << "\n";
  }
  if (!passed) {
    if (first_failing_case >= 0)
      out << (zh ? "第一个失败的用例：" : "first failing case: ") << first_failing_case << " (" << first_failing_function
          << (zh ? "；--gdb 会停在这里）\n" : "; --gdb stops there)\n");
    out << (zh ? "诊断：" : "diagnosis: ") << diagnosis << "\n";
    if (!hint.empty()) {  // wrapped at spaces, ~100 columns (a Chinese hint has few spaces: it stays long)
      std::istringstream words(hint);
      std::string word, line;
      while (words >> word) {
        if (!line.empty() && columns(line) + 1 + columns(word) > 98) out << "  " << line << "\n", line.clear();
        line += (line.empty() ? "" : " ") + word;
      }
      if (!line.empty()) out << "  " << line << "\n";
    }
  }
  out << result_line() << "\n";
  return out.str();
}

std::string Report::to_html() const {
  const bool zh = lang == "zh";
  std::ostringstream out;
  const std::size_t failed = failed_count();
  out << "<div class=\"tapegrad-exercise\"><p><b>" << (zh ? "练习 " : "exercise ") << escape_html(exercise) << "</b>: "
      << rows.size() - failed << (zh ? " / " : " of ") << rows.size() << (zh ? " 项检查通过" : " checks passed") << "</p>";
  out << "<table style=\"border-collapse:collapse;font-family:monospace\">";
  out << "<tr><th></th><th style=\"text-align:left\">" << (zh ? "用例" : "case") << "</th><th style=\"text-align:left\">"
      << (zh ? "输出" : "output") << "</th><th style=\"text-align:left\">" << (zh ? "详情" : "detail") << "</th></tr>";
  for (const CheckRow& r : rows)
    out << "<tr style=\"background:" << (r.passed ? "#e6f4ea" : "#fce8e6") << "\"><td style=\"padding:0 6px;color:"
        << (r.passed ? "#137333\">&#10003;" : "#c5221f\">&#10007;") << "</td><td style=\"padding:0 6px\">"
        << escape_html(r.case_name) << "</td><td style=\"padding:0 6px\">" << escape_html(r.output)
        << "</td><td style=\"padding:0 6px\">" << escape_html(r.detail) << "</td></tr>";
  out << "</table>";
  if (!printed.empty())
    out << "<p>" << (zh ? "你的代码打印了：" : "your code printed:") << "</p><pre>" << escape_html(printed) << "</pre>";
  if (!passed)
    out << "<p style=\"background:#fef7e0;padding:4px\"><b>" << (zh ? "诊断：" : "diagnosis: ") << "<code>"
        << escape_html(diagnosis) << "</code></b><br>" << escape_html(hint) << "</p>";
  out << "<p><code>" << escape_html(result_line()) << "</code></p></div>";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Report& report) { return out << report.to_string(); }

Report combine(const std::string& exercise, const std::vector<Report>& reports) {
  // Case indices stay each report's own: `--case N` runs case N of every one (gdb stops in the first
  // of the learner's functions it reaches).
  Report all;
  all.exercise = exercise;
  all.passed = !reports.empty();
  for (const Report& r : reports) {
    all.lang = r.lang;
    for (CheckRow row : r.rows) {
      row.case_name = r.exercise + " " + row.case_name;
      all.rows.push_back(row);
    }
    if (!r.passed && all.passed) {
      all.passed = false;
      all.diagnosis = r.diagnosis;
      all.hint = r.hint;
      all.first_failing_case = r.first_failing_case;
      all.first_failing_function = r.first_failing_function;
    }
    if (all.printed.empty()) all.printed = r.printed;
  }
  return all;
}

int main_with(int argc, char** argv, const std::function<Report(const Options&)>& check) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lang" && i + 1 < argc) options.lang = argv[++i];
    else if (a == "--case" && i + 1 < argc) options.only_case = std::atoi(argv[++i]);
    else if (a == "--in-process") options.isolate = false;
    else if (a == "--timeout" && i + 1 < argc) options.timeout_seconds = std::atof(argv[++i]);
    else {
      std::cerr << "usage: " << argv[0] << " [--lang en|zh] [--case N] [--in-process] [--timeout SECONDS]\n";
      return 2;
    }
  }
  try {
    const Report report = check(options);
    std::cout << report.to_string() << std::flush;
    return report.passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "the grader failed: " << e.what() << "\nresult: fail diagnosis=grader_error" << std::endl;
    return 1;
  }
}

}  // namespace tapegrad::exercise
