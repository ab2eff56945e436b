// layers/curve_png.hpp: learning-curve charts written as PNG files, so a training run can leave a picture of its
// loss and accuracy beside its numbers without plotting software. A chart is a title, an x-axis label shared by
// its panels, and one to four panels side by side (typically "loss" and "accuracy %"), each holding named series
// of (x, y) points drawn as lines in distinct colours, with a grid, tick labels and a legend. Everything is drawn
// here (including a built-in 5 x 7 bitmap font for printable ASCII) and encoded as an 8-bit RGB PNG with zlib.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "snack/error.hpp"

namespace snk::layers {

// One curve. x and y have the same length; a point with a coordinate that is not finite or beyond 1e100 in
// magnitude is a gap in the line.
struct CurveSeries {
  std::string name;
  std::vector<double> x, y;

  void add(double px, double py) {
    x.push_back(px);
    y.push_back(py);
  }
};

// One plot area. The y range is [y_min, y_max] when both are set (finite, y_min < y_max; e.g. 0 and 100 for an
// accuracy; points outside are clipped), otherwise the data's range widened to round tick values. Series of the same
// name have the same colour in every panel (ten colours, then they repeat).
struct CurvePanel {
  std::string title;  // drawn above the plot area, e.g. "loss" or "test accuracy %"
  std::vector<CurveSeries> series;
  double y_min = std::numeric_limits<double>::quiet_NaN();
  double y_max = std::numeric_limits<double>::quiet_NaN();
};

struct CurveChart {
  std::string title;
  std::string x_label;  // under the panels, e.g. "epoch"
  std::vector<CurvePanel> panels;
  int width = 1000, height = 450;
};

// Draws the chart and writes it to path as an RGB PNG of chart.width x chart.height, atomically: the image is
// written to path + ".tmp", which is then renamed to path. Throws Error(InvalidValue) for no panel or more than
// four, a size outside 320 x 200 .. 8192 x 8192, or a series whose x and y lengths differ (nothing is written), and
// when the file cannot be written (the message names it; no partial file is left at path).
void write_curves_png(const std::string& path, const CurveChart& chart);

}  // namespace snk::layers
