#include "tapegrad/lab/plot_figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

namespace {

// A number for the script: whole numbers as such ("20", not format_double's "2e+01"), others exactly.
std::string number(double x) {
  if (std::isfinite(x) && x == std::round(x) && std::abs(x) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  return format_double(x);
}

struct Range {
  double lo, hi;
};

// The x range of the panel's points, with a margin so that no point sits on the frame.
Range padded(std::vector<double> v, bool log_axis) {
  v.erase(std::remove_if(v.begin(), v.end(), [&](double x) { return !std::isfinite(x) || (log_axis && x <= 0); }),
          v.end());
  if (v.empty()) return log_axis ? Range{0.1, 10.0} : Range{-1.0, 1.0};
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const double lo = *lo_it, hi = *hi_it;
  if (log_axis) {
    const double f = hi > lo ? std::pow(hi / lo, 0.06) : 1.5;
    return {lo / f, hi * f};
  }
  const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(1.0, std::abs(lo) * 0.1);
  return {lo - pad, hi + pad};
}

std::string quoted(const std::string& text) {
  std::string q = "'";
  for (char ch : text) q += ch == '\'' ? std::string("''") : std::string(1, ch);
  return q + "'";
}

// Two series drawn on top of each other: the same x values and y within half a percent of the axis span.
bool coincide(const Series& a, const Series& b, const Range& y, bool log_y) {
  if (a.points.empty() || a.points.size() != b.points.size()) return false;
  const double span = log_y ? std::log(y.hi / y.lo) : y.hi - y.lo;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    if (a.points[i].first != b.points[i].first) return false;
    const double d = log_y ? std::abs(std::log(a.points[i].second / b.points[i].second))
                           : std::abs(a.points[i].second - b.points[i].second);
    if (!(d <= 0.005 * span)) return false;
  }
  return true;
}

// "text" for gnuplot, where \n is a line break.
std::string dq(const std::string& text) {
  std::string q = "\"";
  for (char ch : text) q += ch == '\n' ? std::string("\\n") : (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
  return q + "\"";
}

// What a panel draws of a series: on a log y axis, only positive values (the key says what was left out).
Series drawable(const Series& in, bool log_y, Lang lang) {
  Series s = in;
  if (!log_y) return s;
  const std::size_t before = s.points.size();
  s.points.erase(std::remove_if(s.points.begin(), s.points.end(), [](const auto& p) { return !(p.second > 0); }),
                 s.points.end());
  const std::size_t dropped = before - s.points.size();
  if (dropped > 0 && s.points.empty() && s.clipped_x.empty()) s.title += text::not_on_log_axis.in(lang);
  else if (dropped > 0) s.title += text::zeros_open.in(lang) + std::to_string(dropped) + text::zeros_not_drawn.in(lang);
  return s;
}

// Tic marks for a log axis spanning less than ~a decade, where gnuplot would label none:
// 1-2-5 values in the range, else 1..9, as "set ytics (...)"; "autofreq" otherwise.
std::string log_tics(const Range& r) {
  if (r.hi / r.lo >= 20) return "autofreq";
  for (const std::vector<double>& mantissas :
       {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}}) {
    std::vector<double> tics;
    for (int e = static_cast<int>(std::floor(std::log10(r.lo))); e <= static_cast<int>(std::ceil(std::log10(r.hi))); ++e)
      for (double m : mantissas) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g", m * std::pow(10.0, e));  // 3e-05, not 3.0000000000000004e-05
        const double t = std::strtod(text, nullptr);
        if (t > r.lo && t < r.hi) tics.push_back(t);
      }
    if (tics.size() >= 3 || (tics.size() >= 2 && mantissas.size() > 3)) {
      std::string s = "(";
      for (std::size_t i = 0; i < tics.size(); ++i) s += (i ? ", " : "") + number(tics[i]);
      return s + ")";
    }
  }
  // A very narrow range: its ends and middle, to 3 significant digits.
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.3g, %.3g, %.3g)", r.lo * std::pow(r.hi / r.lo, 0.1), std::sqrt(r.lo * r.hi),
                r.hi / std::pow(r.hi / r.lo, 0.1));
  return buf;
}

double shifted(double x, double offset, bool log_x) { return log_x ? x * std::pow(2.0, offset) : x + offset; }

}  // namespace

void Series::add(double x, double y, double clip_top) {
  if (!std::isfinite(y) || (std::isfinite(clip_top) && y > clip_top)) clipped_x.push_back(x);
  else points.emplace_back(x, y);
}

namespace {

// The notes for series drawn on top of each other: "(post, deepnorm and rezero coincide)".
std::string coincidence_notes(const std::vector<Series>& series, const Range& y, bool log_y, Lang lang) {
  std::vector<std::size_t> group(series.size());
  for (std::size_t i = 0; i < series.size(); ++i) {
    group[i] = i;
    for (std::size_t j = 0; j < i; ++j)
      if (group[j] == j && coincide(series[j], series[i], y, log_y)) {
        group[i] = j;
        break;
      }
  }
  std::string notes;
  for (std::size_t lead = 0; lead < series.size(); ++lead) {
    std::vector<std::string> names;
    bool offset = false;
    for (std::size_t i = 0; i < series.size(); ++i)
      if (group[i] == lead) names.push_back(series[i].name), offset |= series[i].x_offset != series[lead].x_offset;
    if (names.size() < 2) continue;
    notes += text::coincide_open.in(lang);
    for (std::size_t i = 0; i < names.size(); ++i)
      notes += (i == 0 ? "" : (i + 1 == names.size() ? text::and_word : text::list_sep).in(lang)) + names[i];
    notes += text::coincide.in(lang) + (offset ? text::markers_offset.in(lang) : "") + text::close.in(lang);
  }
  return notes;
}

// "$d<n> << EOD ... EOD": points as gnuplot reads them inline.
std::string data_block(int n, const std::vector<std::pair<double, double>>& points) {
  std::string s = "$d" + std::to_string(n) + " << EOD\n";
  for (const auto& [x, y] : points) s += number(x) + " " + number(y) + "\n";
  return s + "EOD\n";
}

}  // namespace

std::string Figure::script() const {
  std::ostringstream s;
  s << "# Written by tapegrad-depth; run from this folder: gnuplot <this file>\n"
    << "# The data are the blocks below ($d0, $d1, ...), computed from the CSVs beside this file.\n"
    << "set terminal pngcairo noenhanced size " << width << "," << height << " font " << quoted(plot_font(lang)) << "\n"
    << "set output " << quoted(png) << "\n"
    << "set grid lc rgb '#dddddd'\n";
  int block = 0;
  std::vector<std::string> plots;  // per panel: its settings and plot command
  for (const Panel& given : panels) {
    Panel p = given;
    for (Series& se : p.series) se = drawable(se, p.log_y, lang);
    // Where each point lands, shifted sideways by its series' offset.
    std::vector<std::vector<std::pair<double, double>>> points(p.series.size());
    std::vector<double> xs, ys;
    for (std::size_t i = 0; i < p.series.size(); ++i) {
      const Series& se = p.series[i];
      for (const auto& [x, y] : se.points) {
        points[i].emplace_back(shifted(x, se.x_offset, p.log_x), y);
        xs.push_back(points[i].back().first), ys.push_back(y);
      }
      for (double x : se.clipped_x) xs.push_back(shifted(x, se.x_offset, p.log_x));
    }
    for (double x : p.x_extent) xs.push_back(x);
    // Ranges: x from the points and clipped markers; y fixed (a clip level) or from the points.
    const Range xr = padded(xs, p.log_x);
    const double span = p.clip_top - p.y_floor;
    const Range yr = std::isfinite(p.clip_top) ? Range{p.y_floor - 0.04 * span, p.clip_top + 0.06 * span}
                                               : padded(ys, p.log_y);
    // Clipped markers: at the clip level, or (a panel without one) at the top of the data.
    const double marker_y = std::isfinite(p.clip_top) ? p.clip_top
                            : ys.empty()              ? (p.log_y ? std::sqrt(yr.lo * yr.hi) : 0.5 * (yr.lo + yr.hi))
                                                      : *std::max_element(ys.begin(), ys.end());
    std::ostringstream panel;
    panel << "set title " << dq(p.title + coincidence_notes(p.series, yr, p.log_y, lang)) << "\n"
          << "set xlabel " << quoted(p.xlabel) << "\nset ylabel " << quoted(p.ylabel) << "\n"
          << (p.log_x ? "set logscale x 2\n" : "unset logscale x\n")
          << (p.log_y ? "set logscale y\nset ytics " + log_tics(yr) + "\n" : "unset logscale y\nset ytics autofreq\n")
          << "set xrange [" << number(xr.lo) << ":" << number(xr.hi) << "]\n"
          << "set yrange [" << number(yr.lo) << ":" << number(yr.hi) << "]\n"
          << "set key " << p.key << "\n";
    std::vector<std::string> items;
    bool any_clipped = false;
    for (std::size_t i = 0; i < p.series.size(); ++i) {
      const Series& se = p.series[i];
      if (points[i].empty()) {
        items.push_back("keyentry " + se.style + " title " + quoted(se.title));  // in the key all the same
      } else {
        s << data_block(block, points[i]);
        items.push_back("$d" + std::to_string(block++) + " using 1:2 " + se.style + " title " + quoted(se.title));
      }
      if (se.clipped_x.empty()) continue;
      any_clipped = true;
      std::vector<std::pair<double, double>> at_top;
      for (double x : se.clipped_x) at_top.emplace_back(shifted(x, se.x_offset, p.log_x), marker_y);
      s << data_block(block, at_top);
      items.push_back("$d" + std::to_string(block++) + " using 1:2 with points pt 9 ps 1.4 lc rgb '" + se.colour +
                      "' notitle");
    }
    items.insert(items.end(), p.functions.begin(), p.functions.end());
    if (any_clipped)
      items.push_back("keyentry with points pt 9 ps 1.4 lc rgb 'black' title " + quoted(text::clipped.in(lang)));
    if (items.empty()) items.push_back("keyentry title " + quoted(text::no_data.in(lang)));
    panel << "plot ";
    for (std::size_t i = 0; i < items.size(); ++i) panel << (i ? ", \\\n  " : "") << items[i];
    panel << "\n";
    plots.push_back(panel.str());
  }
  s << "set multiplot layout " << rows << "," << cols << " title " << dq(title) << "\n";
  for (const auto& p : plots) s << p;
  s << "unset multiplot\n";
  return s.str();
}

}  // namespace tapegrad::lab
