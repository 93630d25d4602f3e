/// \file line_chart.hpp
/// \brief Pictures (chapter 11): the loss curve, one or more series of (x, y) points as an SVG line chart.
#pragma once

#include <string>
#include <vector>

namespace tfm {

/// One line of the chart.
struct ChartSeries {
  std::string name;       ///< shown in the legend, e.g. "train"
  std::vector<double> x;  ///< e.g. step numbers
  std::vector<double> y;  ///< e.g. losses; as many as x
  std::string colour;     ///< CSS colour, e.g. "#1f77b4"
};

/// Titles and axes of a chart.
struct ChartOptions {
  std::string title;    ///< above the plot
  std::string x_label;  ///< under the x axis
  std::string y_label;  ///< beside the y axis
  bool log_y = false;   ///< logarithmic y axis (losses span decades); needs y > 0
};

/// Writes the series as an SVG line chart with axes, ticks and a legend. Throws
/// std::invalid_argument for no points, x/y of different lengths or (with log_y) a y <= 0, and
/// std::runtime_error naming `path` if it cannot be written.
void write_line_chart_svg(const std::string& path, const std::vector<ChartSeries>& series,
                          const ChartOptions& options = {});

}  // namespace tfm
