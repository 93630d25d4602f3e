#include "tfm/pictures/line_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tfm/pictures/svg.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace {

// "Nice" tick positions covering [low, high]: steps of 1, 2 or 5 times a power of ten.
std::vector<double> ticks(double low, double high, int wanted) {
  const double raw = (high - low) / wanted;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(low / step) * step; t <= high + 1e-9 * step; t += step)
    out.push_back(t);
  return out;
}

// Whole numbers in full (step 1500, not 1.5e+03); others with three significant digits.
std::string tick_label(double t) {
  return t == std::round(t) && std::abs(t) < 1e9 ? std::to_string(static_cast<long long>(t))
                                                 : svg::short_number(t);
}

}  // namespace

void write_line_chart_svg(const std::string& path, const std::vector<ChartSeries>& series,
                          const ChartOptions& options) {
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min,
         y_max = -x_min;
  for (const ChartSeries& s : series) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("line chart: series '" + s.name + "' has " +
                                  std::to_string(s.x.size()) + " x values but " +
                                  std::to_string(s.y.size()) + " y values");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      // A NaN or infinity would end up as "nan" in the points attribute: an unreadable file.
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]))
        throw std::invalid_argument("line chart: series '" + s.name +
                                    "' has a value that is not finite at index " +
                                    std::to_string(i) + " (x " + std::to_string(s.x[i]) + ", y " +
                                    std::to_string(s.y[i]) + ")");
      if (options.log_y && !(s.y[i] > 0))
        throw std::invalid_argument("line chart: series '" + s.name + "' has y <= 0 on a log axis");
      const double y = options.log_y ? std::log10(s.y[i]) : s.y[i];
      x_min = std::min(x_min, s.x[i]);
      x_max = std::max(x_max, s.x[i]);
      y_min = std::min(y_min, y);
      y_max = std::max(y_max, y);
    }
  }
  if (!(x_min <= x_max)) throw std::invalid_argument("line chart: no points to draw");
  if (x_max == x_min) x_max = x_min + 1;
  if (y_max == y_min) y_max = y_min + 1;
  const double pad = 0.05 * (y_max - y_min);
  y_min -= pad;
  y_max += pad;

  // The legend's column is as wide as its longest name needs (about 7 px a character at 12 px).
  std::size_t longest_name = 0;
  for (const ChartSeries& s : series) longest_name = std::max(longest_name, s.name.size());
  const double left = 70, top = 40, bottom = 50, plot_w = 500, plot_h = 330;
  const double right = std::max(150.0, 42 + 7.0 * static_cast<double>(longest_name) + 8);
  const double width = left + plot_w + right, height = top + plot_h + bottom;
  auto sx = [&](double x) { return left + (x - x_min) / (x_max - x_min) * plot_w; };
  auto sy = [&](double y) { return top + (1 - (y - y_min) / (y_max - y_min)) * plot_h; };

  std::string out = svg::open(width, height);
  out += svg::text(width / 2, 22, options.title, "text-anchor=\"middle\" font-size=\"15\"");
  out += "<rect x=\"" + svg::px(left) + "\" y=\"" + svg::px(top) + "\" width=\"" + svg::px(plot_w) +
         "\" height=\"" + svg::px(plot_h) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (double t : ticks(x_min, x_max, 6)) {
    out += "<line x1=\"" + svg::px(sx(t)) + "\" y1=\"" + svg::px(top) + "\" x2=\"" +
           svg::px(sx(t)) + "\" y2=\"" + svg::px(top + plot_h) + "\" stroke=\"#ddd\"/>\n";
    out += svg::text(sx(t), top + plot_h + 16, tick_label(t), "text-anchor=\"middle\"");
  }
  // On a log axis ticks sit at powers of ten and at 2x and 5x them. A curve that stays inside
  // one such interval (a loss going from 1.8 to 1.5) would get no tick at all: it gets "nice"
  // linear ticks of its values instead, placed on the log axis.
  std::vector<double> y_ticks;
  if (options.log_y) {
    for (double e = std::floor(y_min); e <= y_max; ++e)
      for (double m : {1.0, 2.0, 5.0})
        if (double v = e + std::log10(m); v >= y_min && v <= y_max) y_ticks.push_back(v);
    if (y_ticks.size() < 2) {
      y_ticks.clear();
      for (double v : ticks(std::pow(10.0, y_min), std::pow(10.0, y_max), 4))
        if (v > 0) y_ticks.push_back(std::log10(v));
    }
  } else {
    y_ticks = ticks(y_min, y_max, 6);
  }
  for (double t : y_ticks) {
    out += "<line x1=\"" + svg::px(left) + "\" y1=\"" + svg::px(sy(t)) + "\" x2=\"" +
           svg::px(left + plot_w) + "\" y2=\"" + svg::px(sy(t)) + "\" stroke=\"#ddd\"/>\n";
    out += svg::text(left - 6, sy(t) + 4, svg::short_number(options.log_y ? std::pow(10.0, t) : t),
                     "text-anchor=\"end\"");
  }
  out += svg::text(left + plot_w / 2, height - 12, options.x_label, "text-anchor=\"middle\"");
  out += svg::text(
      16, top + plot_h / 2, options.y_label,
      "text-anchor=\"middle\" transform=\"rotate(-90 16 " + svg::px(top + plot_h / 2) + ")\"");

  double legend_y = top + 10;
  for (const ChartSeries& s : series) {
    std::string points;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      points += svg::px(sx(s.x[i])) + "," +
                svg::px(sy(options.log_y ? std::log10(s.y[i]) : s.y[i])) + " ";
    out += "<polyline fill=\"none\" stroke=\"" + svg::escape(s.colour) +
           "\" stroke-width=\"1.5\" points=\"" + points + "\"/>\n";
    out += "<line x1=\"" + svg::px(left + plot_w + 12) + "\" y1=\"" + svg::px(legend_y) +
           "\" x2=\"" + svg::px(left + plot_w + 36) + "\" y2=\"" + svg::px(legend_y) +
           "\" stroke=\"" + svg::escape(s.colour) + "\" stroke-width=\"2\"/>\n";
    out += svg::text(left + plot_w + 42, legend_y + 4, s.name);
    legend_y += 20;
  }
  out += "</svg>\n";
  write_text_file(path, out);
}

}  // namespace tfm
