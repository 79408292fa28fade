#pragma once
// A gnuplot figure built from data the lab has computed: panels of series, written as
// one self-contained script (the data inline as $d0, $d1, ... blocks) that draws a PNG.
//
// What every figure does for its reader, so that no plot needs explaining:
//   - explicit axis ranges with a margin around every point (no point on the frame; log axes padded too);
//   - values above a panel's clip level, and NaN/Inf, drawn as triangles at the top with a key entry
//     "clipped / NaN";
//   - two series that would hide each other named in the panel title ("post and deepnorm coincide");
//   - a series with nothing to draw still in the key, saying why (e.g. all 0 on a log axis).

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tapegrad/lab/lab_text.hpp"

namespace tapegrad::lab {

struct Series {
  std::string name;    // short, for notes ("post")
  std::string title;   // the key entry
  std::string style;   // gnuplot: "with linespoints pt 7 dt 2 lc rgb '#d62728'"
  std::string colour;  // of its clipped markers
  double x_offset = 0;  // drawn shifted sideways (in octaves on a log x axis), so equal series stay visible
  std::vector<std::pair<double, double>> points;
  std::vector<double> clipped_x;
  // A point, or a clipped marker if y is NaN/Inf or above clip_top.
  void add(double x, double y, double clip_top = std::numeric_limits<double>::infinity());
};

struct Panel {
  std::string title, xlabel, ylabel;
  std::string key = "below horizontal maxrows 3 width -2 samplen 2";  // below the panel: never over a line
  bool log_x = false, log_y = false;
  // A loss panel: y is drawn on [y_floor, clip_top] (plus margins); clipped markers sit at clip_top.
  double clip_top = std::numeric_limits<double>::quiet_NaN();
  double y_floor = 0;
  std::vector<double> x_extent;        // x values the range must include besides the points
  std::vector<Series> series;
  std::vector<std::string> functions;  // extra plot items: "2.08 with lines dt 2 lc rgb 'black' title 'chance'"
};

struct Figure {
  std::string png, title;
  int width = 800, height = 400, rows = 1, cols = 1;
  Lang lang = Lang::en;  // of the notes the script adds (coincide, clipped, ...) and its font (plot_font)
  std::vector<Panel> panels;
  std::string script() const;
};

}  // namespace tapegrad::lab
